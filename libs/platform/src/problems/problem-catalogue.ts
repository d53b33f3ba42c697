/**
 * The catalogue of problem `type`s. Every type is a relative URI
 * `/problems/<code>` that the service itself serves (GET /problems/{code}),
 * so a client can look up what an error means. Bounded contexts add their
 * own codes with `registerProblemTypes`.
 */
export interface ProblemType {
  readonly title: string;
  readonly status: number;
  readonly description: string;
}

const catalogue = new Map<string, ProblemType>();

export function registerProblemTypes(types: Record<string, ProblemType>): void {
  for (const [code, type] of Object.entries(types)) catalogue.set(code, type);
}

export function problemType(code: string): ProblemType | undefined {
  return catalogue.get(code);
}

export function allProblemTypes(): Record<string, ProblemType> {
  return Object.fromEntries([...catalogue.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

export function problemTypeUri(code: string): string {
  return `/problems/${code}`;
}

registerProblemTypes({
  'malformed-request': { status: 400, title: 'Malformed request', description: 'The body is not valid JSON, or a required header is malformed.' },
  'invalid-environment-header': {
    status: 400,
    title: 'Invalid x-environment header',
    description: 'Every request must name its environment in the x-environment header, as a uuid.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description: 'The bearer token is missing, malformed, expired, wrongly signed or uses an algorithm that is not accepted.',
  },
  'forbidden-environment': {
    status: 403,
    title: 'Forbidden',
    description: "The token's environments claim does not include the environment named in x-environment.",
  },
  'not-found': { status: 404, title: 'Not Found', description: 'No such resource exists in this environment.' },
  'route-not-found': { status: 404, title: 'Not Found', description: 'No operation exists at this method and path.' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed', description: 'The path exists but not with this method.' },
  'version-conflict': {
    status: 409,
    title: 'Conflict',
    description: 'The resource changed since the version the request was based on (stale If-Match or a concurrent write). Reload and retry.',
  },
  'invalid-idempotency-key': {
    status: 400,
    title: 'Invalid Idempotency-Key',
    description: 'The Idempotency-Key header must be sent once, with 1 to 255 printable ASCII characters.',
  },
  'idempotency-key-in-flight': {
    status: 409,
    title: 'Idempotency-Key in flight',
    description: 'A request with this Idempotency-Key is still running; retry after it completes (Retry-After) to receive its response. It never runs twice.',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency-Key reused',
    description:
      'The Idempotency-Key was already used by this caller in this environment for a different request (method, path or body). Use a new key for a new request.',
  },
  'stream-exists': { status: 409, title: 'Conflict', description: 'A resource with this id already exists.' },
  'invalid-text': {
    status: 422,
    title: 'Invalid text',
    description: 'Text (in the body, a query parameter or a key) must be valid Unicode and must not contain U+0000; `errors` points at the member.',
  },
  'uri-too-long': { status: 414, title: 'URI Too Long', description: 'A path segment is longer than the service accepts (500 characters).' },
  'request-timeout': {
    status: 408,
    title: 'Request Timeout',
    description: 'The request headers (HEADERS_TIMEOUT_MS) or the whole request (REQUEST_TIMEOUT_MS) did not arrive in time; the connection is closed.',
  },
  'headers-too-large': { status: 431, title: 'Request Header Fields Too Large', description: 'The request headers exceed 16 KiB.' },
  'payload-too-large': {
    status: 413,
    title: 'Payload Too Large',
    description: 'The request body exceeds the size limit (BODY_LIMIT_BYTES, 1 MiB by default).',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported Media Type',
    description: 'Request bodies must be sent as application/json.',
  },
  'validation-failed': {
    status: 422,
    title: 'Unprocessable Content',
    description:
      'One or more fields are invalid. `errors` lists each with a JSON Pointer (`/items/0/quantity`; query parameters as `/query/<name>`, headers as `/headers/<name>`).',
  },
  'too-many-decimals': { status: 422, title: 'Unprocessable Content', description: 'A decimal field has more decimal places than its precision allows.' },
  'amount-out-of-range': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'An amount or a computed total exceeds the supported range of ±(2^53 − 1) minor units.',
  },
  'read-model-timeout': {
    status: 503,
    title: 'Service Unavailable',
    description:
      'The write was recorded, but the read models did not show it within READ_MODEL_TIMEOUT_MS, so the service does not claim success. A GET may still show the old state for a moment; retrying with the same Idempotency-Key is safe.',
  },
  'database-unavailable': {
    status: 503,
    title: 'Service Unavailable',
    description:
      'The service cannot reach its database, or it is restarting (Retry-After). Send the request again; a write with the same Idempotency-Key is answered once.',
  },
  'database-conflict': {
    status: 503,
    title: 'Service Unavailable',
    description:
      'The database broke off the request because of concurrent work (a deadlock or a serialization failure) and rolled it back whole (Retry-After): send it again.',
  },
  'internal-error': { status: 500, title: 'Internal Server Error', description: 'An unexpected error; the log holds the detail under the request id.' },
});
