import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Every answer of the e2e suite, checked against the service's own
 * `/openapi.json` as a strict OpenAPI 3.0 validator reads it (issue 20 #8):
 * the status is declared for the operation, the content type is one it
 * declares, the body matches that schema, and every header the response
 * declares `required` is there. `nullable` adds null to the schema's own
 * `type` only (OpenAPI 3.0.3): a nullable `$ref` must say so with an `anyOf`.
 * Stricter than OpenAPI's default, an object schema that lists its
 * properties is closed (unless it says `additionalProperties`): a member the
 * document does not name is drift between code and document.
 *
 * A 2xx also proves the request was one the document allows: a body only
 * where a request body is declared, of a declared content type, matching its
 * schema (a 4xx is the service refusing a request, which tests do on purpose).
 */
export interface ContractExchange {
  readonly method: string;
  /** The path with its query string, as requested. */
  readonly path: string;
  readonly requestContentType?: string;
  /** The request body as sent. */
  readonly requestText?: string;
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

/**
 * Routes that serve the service itself rather than the API the document
 * describes: the document and its viewer, and the controllers excluded from it
 * on purpose (`@ApiExcludeController`: health, metrics, the problem-type catalogue).
 */
const OUTSIDE_THE_API = [/^\/openapi\.(json|yaml)$/, /^\/docs(\/|$)/, /^\/health(\/|$)/, /^\/metrics$/, /^\/problems(\/|$)/];

interface MediaType {
  schema?: object;
}
interface Response {
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean; $ref?: string }>;
}
interface Operation {
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> };
}

interface Route {
  readonly template: string;
  readonly pattern: RegExp;
  readonly literals: number;
  readonly item: Record<string, Operation>;
}

const ROOT = 'openapi';

export class OpenApiContract {
  private readonly ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, validateFormats: true });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Document) {
    addFormats(this.ajv);
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    this.ajv.addFormat('double', { type: 'number', validate: () => true });
    this.ajv.addFormat('float', { type: 'number', validate: () => true });
    this.ajv.addFormat('binary', true);
    this.ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
    this.ajv.addSchema({ $id: ROOT, $defs: toJsonSchema(document.components?.schemas ?? {}) });
    this.routes = Object.entries(document.paths)
      .map(([template, item]) => ({
        template,
        item,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literals: template.replace(/\{[^}]+\}/g, '').length,
      }))
      // `/webhooks/deliveries/{deliveryId}/redeliver` before `/webhooks/{id}/...`: the most literal template wins.
      .sort((a, b) => b.literals - a.literals);
  }

  /** The violations of one exchange, empty when it keeps the contract. */
  violationsOf(exchange: ContractExchange): string[] {
    const path = new URL(exchange.path, 'http://service').pathname;
    if (OUTSIDE_THE_API.some((pattern) => pattern.test(path))) return [];
    const route = this.routes.find((candidate) => candidate.pattern.test(path));
    const method = exchange.method.toLowerCase();
    const operation = route?.item[method];
    if (!route || !operation) {
      // An unknown route or method is the framework's 404/405, which no operation can declare.
      return exchange.status === 404 || exchange.status === 405 ? [] : [`${exchange.method} ${path} is not in the document but answered ${exchange.status}`];
    }
    const where = `${exchange.method} ${route.template} → ${exchange.status}`;
    const status = String(exchange.status);
    const response = this.resolve(operation.responses[status] ?? operation.responses[`${status[0]}XX`] ?? operation.responses.default);
    if (!response) return [`${where}: status ${status} is not declared (declared: ${Object.keys(operation.responses).join(', ')})`];
    const violations: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const declared = this.resolve(header);
      if (declared?.required && exchange.headers.get(name) === null) violations.push(`${where}: required header ${name} is missing`);
    }
    violations.push(...this.contentViolations(where, `#/paths/${pointerEscape(route.template)}/${method}/responses/${status}`, response.content, exchange));
    if (exchange.status >= 200 && exchange.status < 300) violations.push(...this.requestViolations(where, route.template, method, operation, exchange));
    return violations;
  }

  private contentViolations(where: string, pointer: string, content: Record<string, MediaType> | undefined, exchange: ContractExchange): string[] {
    const contentType = exchange.headers.get('content-type');
    if (!content || Object.keys(content).length === 0) {
      return exchange.text === '' ? [] : [`${where}: declares no body but answered ${contentType ?? 'no content type'}: ${exchange.text.slice(0, 200)}`];
    }
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    const declared = mediaType === undefined ? undefined : content[mediaType];
    if (!declared) return [`${where}: content type ${contentType ?? '(none)'} is not declared (declared: ${Object.keys(content).join(', ')})`];
    if (!declared.schema) return [];
    const schemaKey = `${pointer}/content/${pointerEscape(mediaType!)}/schema`;
    // NDJSON: each line is one value of the schema.
    if (mediaType === 'application/x-ndjson') {
      const lines = exchange.text.split('\n').filter((line) => line !== '');
      return lines.flatMap((line, index) => this.schemaViolations(`${where} line ${index + 1}`, schemaKey, declared.schema!, JSON.parse(line)));
    }
    if (!isJson(mediaType!)) return [];
    return this.schemaViolations(`${where} body`, schemaKey, declared.schema, exchange.body);
  }

  private requestViolations(where: string, template: string, method: string, operation: Operation, exchange: ContractExchange): string[] {
    const requestBody = operation.requestBody;
    if (exchange.requestText === undefined) {
      return requestBody?.required ? [`${where}: answered 2xx to a request without the required body`] : [];
    }
    if (!requestBody?.content) return [`${where}: answered 2xx to a request body the operation does not declare`];
    const mediaType = exchange.requestContentType?.split(';')[0].trim().toLowerCase() ?? '';
    const declared = requestBody.content[mediaType];
    if (!declared) return [`${where}: answered 2xx to a request body of type ${mediaType}, not declared`];
    if (!declared.schema || !isJson(mediaType)) return [];
    const pointer = `#/paths/${pointerEscape(template)}/${method}/requestBody/content/${pointerEscape(mediaType)}/schema`;
    let body: unknown;
    try {
      body = JSON.parse(exchange.requestText);
    } catch {
      return [`${where}: answered 2xx to a request body that is not JSON`];
    }
    return this.schemaViolations(`${where} request body`, pointer, declared.schema, body);
  }

  private schemaViolations(where: string, key: string, schema: object, value: unknown): string[] {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema) as object);
      this.validators.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) => `${where}: ${error.instancePath || '/'} ${error.message} (${error.schemaPath} ${JSON.stringify(error.params)})`,
    );
  }

  private resolve<T extends object>(node: (T & { $ref?: string }) | undefined): T | undefined {
    if (!node?.$ref) return node;
    const target = node.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    return target as T | undefined;
  }
}

/** application/json and the `+json` types (problem+json). */
function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function pointerEscape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** An OpenAPI 3.0 schema as the JSON Schema it means: `nullable` adds null to the schema's own type, refs point into ROOT; listed properties close the object. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string') result.$ref = value.replace('#/components/schemas/', `${ROOT}#/$defs/`);
    else if (key === 'properties' || key === '$defs')
      result[key] = Object.fromEntries(Object.entries(value as object).map(([name, child]) => [name, toJsonSchema(child)]));
    else if (key === 'example' || key === 'enum' || key === 'default') result[key] = value;
    else result[key] = toJsonSchema(value);
  }
  const schema = node as { nullable?: boolean; type?: unknown; properties?: unknown; additionalProperties?: unknown };
  if (schema.nullable === true && typeof schema.type === 'string') result.type = [schema.type, 'null'];
  if (schema.properties !== undefined && schema.additionalProperties === undefined) result.additionalProperties = false;
  return result;
}
