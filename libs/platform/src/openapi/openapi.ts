import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

const PROBLEM_SCHEMA = {
  type: 'object',
  properties: {
    type: { type: 'string', nullable: true, example: '/problems/validation-failed' },
    title: { type: 'string', nullable: true },
    status: { type: 'integer', format: 'int32', nullable: true },
    detail: { type: 'string', nullable: true },
    instance: { type: 'string', nullable: true },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { pointer: { type: 'string', example: '/items/0/quantity' }, detail: { type: 'string' } } },
    },
  },
  additionalProperties: true,
};

const COMMON_ERRORS: Record<string, string> = {
  '400': 'Malformed JSON or x-environment header',
  '401': 'Missing or invalid bearer token',
  '403': 'The token does not give access to this environment',
  '415': 'The body is not application/json',
  '422': 'Validation failed',
  '500': 'Internal Server Error',
};

/**
 * The OpenAPI document is generated from the controllers and DTOs; this adds
 * what applies to every operation: bearer auth, the x-environment header and
 * the problem-details error responses.
 */
export function buildOpenApiDocument(app: INestApplication, description: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Subscription Billing Service')
    .setDescription(description)
    .setVersion('v4.2024.7.1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addSecurityRequirements('bearer')
    .addServer('/', 'This service (relative to the URL the document was fetched from)')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ProblemDetails: PROBLEM_SCHEMA },
    parameters: {
      ...document.components?.parameters,
      Environment: {
        name: 'x-environment',
        in: 'header',
        required: true,
        description: 'The environment to act on (uuid); the token must list it in its `environments` claim.',
        schema: { type: 'string', format: 'uuid' },
      },
    },
  };
  typeIntegersAsIntegers(document);
  for (const pathItem of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = pathItem[method];
      if (!operation) continue;
      operation.parameters = [{ $ref: '#/components/parameters/Environment' }, ...(operation.parameters ?? [])];
      for (const [status, text] of Object.entries(COMMON_ERRORS)) {
        operation.responses[status] ??= {
          description: text,
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } },
        };
      }
    }
  }
  return document;
}

export function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } } };
}

/**
 * DTOs declare int64 money as `type: Number, format: 'int64'` (TypeScript has
 * one number type); generators would make those floats. Any number schema
 * with an integer format is an integer.
 */
function typeIntegersAsIntegers(node: unknown): void {
  const stack = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null) continue;
    const schema = current as { type?: unknown; format?: unknown };
    if (schema.type === 'number' && (schema.format === 'int64' || schema.format === 'int32')) schema.type = 'integer';
    stack.push(...Object.values(current));
  }
}
