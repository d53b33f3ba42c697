import { applyDecorators, INestApplication } from '@nestjs/common';
import { ApiBody, ApiQuery, DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

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
      items: {
        type: 'object',
        properties: {
          pointer: { type: 'string', example: '/items/0/quantity' },
          detail: { type: 'string' },
          line: { type: 'integer', description: 'A template syntax error: the line of the content (1-based)' },
          column: { type: 'integer', description: 'A template syntax error: the column of the content (1-based)' },
        },
      },
    },
  },
  additionalProperties: true,
};

const COMMON_ERRORS: Record<string, string> = {
  '400': 'Malformed JSON or x-environment header',
  '401': 'Missing or invalid bearer token',
  '403': 'The token does not give access to this environment',
  '414': 'A path segment is longer than 500 characters (uri-too-long)',
  '415': 'The body is not application/json',
  '422': 'Validation failed',
  '431': 'The request headers exceed 16 KiB (headers-too-large)',
  '500': 'Internal Server Error',
  '503':
    "The database is unreachable or restarting (database-unavailable), broke the request off for concurrent work (database-conflict), or a write's read models did not catch up in time (read-model-timeout); each with Retry-After",
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
      IdempotencyKey: {
        name: 'idempotency-key',
        in: 'header',
        required: false,
        description:
          'Makes the write safe to retry (1–255 printable ASCII characters, e.g. a uuid; else 400 at /headers/idempotency-key). ' +
          'Scoped to the environment and the caller (token sub) and kept IDEMPOTENCY_RETENTION_HOURS (24 h by default). ' +
          'The same request again answers the stored response byte for byte with `Idempotent-Replayed: true` (errors too, except 5xx and 409 version-conflict, which release the key); ' +
          'another request with the key is a 422 idempotency-key-reused; while the first still runs, a 409 idempotency-key-in-flight.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
      },
    },
    headers: {
      ...document.components?.headers,
      IdempotentReplayed: {
        description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key (absent otherwise).',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  };
  typeIntegersAsIntegers(document);
  nullableReferencesAcceptNull(document);
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
      if (method === 'post' || method === 'put' || method === 'patch')
        operation.responses['413'] ??= problemResponse('The request body exceeds BODY_LIMIT_BYTES (payload-too-large)');
      // A public write (a gateway's signed webhook) has no caller to scope a key to: the interceptor ignores the header.
      if ((method === 'post' || method === 'put') && !isPublic(operation)) documentIdempotency(operation);
      documentLocation(operation);
    }
  }
  return document;
}

type OperationObject = NonNullable<OpenAPIObject['paths'][string]['post']>;

/** An operation that needs no token (`@Public()` documents it with `@ApiSecurity({})`: one empty requirement). */
function isPublic(operation: OperationObject): boolean {
  return operation.security !== undefined && operation.security.length > 0 && operation.security.every((requirement) => Object.keys(requirement).length === 0);
}

/** Every authenticated POST and PUT takes Idempotency-Key (see IdempotencyInterceptor). */
function documentIdempotency(operation: OperationObject): void {
  operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (status.startsWith('2') && response && !('$ref' in response)) {
      response.headers = { ...response.headers, 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } };
    }
  }
  const errors: Record<string, string> = {
    '400': 'Malformed Idempotency-Key (invalid-idempotency-key, pointer /headers/idempotency-key)',
    '409': 'A request with the same Idempotency-Key is still running (idempotency-key-in-flight; Retry-After)',
    '422': 'The Idempotency-Key was used for a different request (idempotency-key-reused)',
  };
  for (const [status, text] of Object.entries(errors)) {
    const existing = operation.responses[status];
    if (existing && !('$ref' in existing)) existing.description = `${existing.description}; or: ${text}`;
    else operation.responses[status] = problemResponse(text);
  }
}

/**
 * A 201 created something, and its answer says where (`Location`). Declared
 * required on every 201 so that a creation route answering without it breaks
 * the contract (the e2e suite validates every answer against this document).
 */
function documentLocation(operation: OperationObject): void {
  const created = operation.responses['201'];
  if (!created || '$ref' in created) return;
  const location = created.headers?.Location ?? created.headers?.location;
  const description = location && !('$ref' in location) ? location.description : 'The URL of the created resource.';
  const others = Object.entries(created.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'location');
  created.headers = { ...Object.fromEntries(others), Location: { description, required: true, schema: { type: 'string' } } };
}

/** The request body of an action that takes no input (see assertNoInput): `{}` or none. */
export function ApiNoInput(): MethodDecorator {
  return ApiBody({
    required: false,
    description: 'An empty JSON object, or no body; any member is a 422 at its pointer.',
    schema: { type: 'object', additionalProperties: false },
  });
}

/** The query parameters every keyset-paged list takes: a page size and the previous page's token. */
export function ApiPageQuery(): MethodDecorator {
  return applyDecorators(
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    ApiQuery({ name: 'pageToken', required: false, schema: { type: 'string' }, description: 'nextPageToken of the previous page' }),
  );
}

export function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } } };
}

/**
 * Swagger writes a nullable nested DTO as `nullable: true` beside `allOf:
 * [{ $ref }]`, but in OpenAPI 3.0.3 `nullable` only adds null to the same
 * schema's own `type`: strict validators still require the referenced object,
 * so every `null` answered there broke the document. Such a member is either
 * the referenced schema or null, said the way OpenAPI 3.0 allows; a nullable
 * enum lists null among its values.
 */
function nullableReferencesAcceptNull(node: unknown): void {
  const stack = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== 'object' || current === null) continue;
    const schema = current as { nullable?: unknown; type?: unknown; enum?: unknown[]; allOf?: unknown[]; anyOf?: unknown[] };
    // Likewise an enum must list null itself for null to pass.
    if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
    if (schema.nullable === true && Array.isArray(schema.allOf) && schema.allOf.length === 1) {
      // The null branch is `{ type, nullable, enum: [null] }`: the OpenAPI 3.0 schema whose only value is null.
      schema.anyOf = [schema.allOf[0], { type: 'object', nullable: true, enum: [null] }];
      delete schema.allOf;
    }
    stack.push(...Object.values(current));
  }
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
