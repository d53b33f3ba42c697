import { HttpException } from '@nestjs/common';
import { DomainError, DomainErrorKind } from '@billing/shared-kernel';
import { ReadModelTimeoutError } from '@billing/event-store';
import { HttpProblem } from './problem';

const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  validation: 422,
  not_found: 404,
  conflict: 409,
  forbidden: 403,
};

/** Fastify's own errors for bodies it could not accept, by code. */
const FASTIFY_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported-media-type', detail: 'Send the body as application/json.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload-too-large', detail: 'The request body is larger than the limit.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed-request', detail: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed-request', detail: 'The JSON body is empty; send {} for no fields.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'malformed-request', detail: 'Content-Length does not match the body.' },
};

/** Framework-raised client errors (routing, parsing) by status. */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'malformed-request',
  404: 'route-not-found',
  405: 'method-not-allowed',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
};

export interface ProblemParts {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors?: HttpProblem['errors'];
  readonly headers?: Record<string, string>;
  /** True when the cause is a defect or a failing database: log it in full (the answer stays generic). */
  readonly unexpected?: boolean;
}

/**
 * SQLSTATEs of a transaction Postgres broke off because of concurrent work: it was rolled back whole, so the
 * request may simply be sent again.
 */
const CONCURRENCY_STATES = new Set(['40001', '40P01', '55P03']);
/** SQLSTATEs and socket errors that say the database cannot be reached or is going away. */
const UNAVAILABLE_STATES = new Set(['53300', '57P01', '57P02', '57P03']);
const UNAVAILABLE_SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * The database, not the request, failed: a 503 with Retry-After instead of a 500, since sending the same request
 * again is the remedy (a write either was rolled back whole or, once recorded, replays under its Idempotency-Key).
 * Still logged in full: many of them mean the database needs attention.
 */
function databaseTrouble(error: unknown): ProblemParts | null {
  // Duck-typed: socket errors come from Node's own realm, where `instanceof Error` may not hold (Jest's sandbox).
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CONCURRENCY_STATES.has(code)) {
    const detail = 'The database broke off this request because of concurrent work (nothing of it was written); send it again.';
    return { status: 503, code: 'database-conflict', detail, headers: { 'retry-after': '1' }, unexpected: true };
  }
  const unavailable =
    (typeof code === 'string' && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_SOCKET_ERRORS.has(code) || code.startsWith('08'))) ||
    (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message));
  if (!unavailable) return null;
  const detail = 'The database cannot be reached or is restarting; send the request again shortly (with the same Idempotency-Key for a write).';
  return { status: 503, code: 'database-unavailable', detail, headers: { 'retry-after': '1' }, unexpected: true };
}

/** The one place where errors become HTTP statuses and problem codes. */
export function toProblemParts(error: unknown): ProblemParts {
  if (error instanceof DomainError) {
    return { status: STATUS_BY_KIND[error.kind], code: error.code, detail: error.message, errors: error.errors };
  }
  if (error instanceof ReadModelTimeoutError) {
    return {
      status: 503,
      code: 'read-model-timeout',
      detail: `The change was recorded, but reading it back is not yet possible (${error.projections.join(', ')} did not catch up within ${error.timeoutMs} ms). Retrying with the same Idempotency-Key is safe.`,
      headers: { 'retry-after': '1' },
    };
  }
  if (error instanceof HttpProblem) {
    return { status: error.status, code: error.code, detail: error.message, errors: error.errors, headers: error.headers };
  }
  const fastifyCode = (error as { code?: unknown })?.code;
  if (typeof fastifyCode === 'string' && FASTIFY_ERRORS[fastifyCode]) return FASTIFY_ERRORS[fastifyCode];
  if (error instanceof SyntaxError && 'body' in (error as object)) {
    return FASTIFY_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY;
  }
  const status = error instanceof HttpException ? error.getStatus() : (error as { statusCode?: unknown })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 401) return { status, code: 'unauthorized', detail: 'A valid bearer token is required.', headers: { 'www-authenticate': 'Bearer' } };
    const code = CODE_BY_STATUS[status] ?? 'malformed-request';
    const detail = status === 404 ? 'No operation exists at this method and path.' : (error as Error).message || 'The request could not be processed.';
    return { status, code, detail };
  }
  const database = databaseTrouble(error);
  if (database) return database;
  return { status: 500, code: 'internal-error', detail: 'An unexpected error occurred.', unexpected: true };
}
