import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import {
  AppConfig,
  Authenticator,
  BoundedContext,
  buildOpenApiDocument,
  Clock,
  createValidationPipe,
  edgeServerOptions,
  installEdgeHooks,
  JsonLogger,
  Metrics,
} from '@billing/platform';
import { AppModule } from './app.module';
import { API_DESCRIPTION } from './api-description';

/**
 * Builds the HTTP application on Fastify (chosen over Express for its lower
 * per-request overhead on the command path). Used by main and by the e2e tests,
 * so tests exercise exactly what users run.
 */
export async function createApp(
  config: AppConfig,
  options: { clock?: Clock; extraContexts?: readonly BoundedContext[]; logger?: JsonLogger | false } = {},
): Promise<NestFastifyApplication> {
  const logger = options.logger ?? new JsonLogger(config.logLevel);
  const adapter = new FastifyAdapter(edgeServerOptions(config));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options), adapter, {
    logger: logger === false ? false : logger,
    bufferLogs: false,
    // Fastify parses JSON itself (with the edge's checks); Nest would add urlencoded bodies, which this API does not accept.
    bodyParser: false,
  });
  installEdgeHooks(app.getHttpAdapter().getInstance(), { logger, metrics: app.get(Metrics), authenticator: app.get(Authenticator) });
  app.useGlobalPipes(createValidationPipe());
  const document = buildOpenApiDocument(app, API_DESCRIPTION);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
  await app.init();
  return app;
}
