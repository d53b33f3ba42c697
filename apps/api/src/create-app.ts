import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { AppConfig, buildOpenApiDocument, Clock, createValidationPipe, JsonLogger } from '@billing/platform';
import { AppModule } from './app.module';
import { API_DESCRIPTION } from './api-description';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Builds the HTTP application on Fastify (chosen over Express for its lower
 * per-request overhead on the command path). Used by main and by the e2e tests,
 * so tests exercise exactly what users run.
 */
export async function createApp(
  config: AppConfig,
  options: { clock?: Clock; extraModules?: Type[]; logger?: JsonLogger | false } = {},
): Promise<NestFastifyApplication> {
  const logger = options.logger ?? new JsonLogger(config.logLevel);
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    disableRequestLogging: true,
    return503OnClosing: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, options), adapter, {
    logger: logger === false ? false : logger,
    bufferLogs: false,
    // Fastify parses JSON itself; Nest would add urlencoded bodies, which this API does not accept.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // Bodies are JSON only: anything else is a 415, not a string the validators would misread.
  fastify.removeContentTypeParser(['text/plain']);
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  if (logger) {
    fastify.addHook('onResponse', async (request, reply) => {
      logger.write('info', {
        msg: 'request',
        requestId: request.id,
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
      }, 'Http');
    });
  }
  app.useGlobalPipes(createValidationPipe());
  const document = buildOpenApiDocument(app, API_DESCRIPTION);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', yamlDocumentUrl: 'openapi.yaml' });
  await app.init();
  return app;
}
