import { FieldError } from '@billing/shared-kernel';
import { Versioned } from '../http/versioned';
import { problemType, problemTypeUri } from './problem-catalogue';

/** RFC 9457 problem details, with `errors` for field-level validation failures. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  requestId?: string;
  errors?: readonly FieldError[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** An HTTP-level failure raised outside the domain (headers, routing, parsing). */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly errors?: readonly FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** A response as sent (status, the headers that matter, the exact body), kept to be sent again byte for byte. */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Thrown by the as-of guard with the answer of an as-of read: the problem
 * filter, which every route's outcome passes through, sends it as the 200
 * (with its ETag) instead of the route's handler running.
 */
export class AsOfAnswer extends Error {
  constructor(readonly result: Versioned<unknown>) {
    super('as-of answer');
  }
}

/** Thrown to answer with a stored failure as it was first sent (the problem filter sends it unchanged). */
export class StoredResponseReplay extends Error {
  constructor(readonly response: StoredResponse) {
    super(`stored ${response.status} response`);
  }
}

export function buildProblem(input: {
  status: number;
  code: string;
  detail: string;
  instance: string;
  requestId?: string;
  errors?: readonly FieldError[];
}): ProblemDetails {
  const known = problemType(input.code);
  return {
    type: problemTypeUri(input.code),
    title: known?.title ?? defaultTitle(input.status),
    status: input.status,
    detail: input.detail,
    instance: input.instance,
    ...(input.requestId ? { requestId: input.requestId } : {}),
    ...(input.errors && input.errors.length > 0 ? { errors: input.errors } : {}),
  };
}

function defaultTitle(status: number): string {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    409: 'Conflict',
    413: 'Payload Too Large',
    415: 'Unsupported Media Type',
    422: 'Unprocessable Content',
    500: 'Internal Server Error',
  };
  return titles[status] ?? 'Error';
}
