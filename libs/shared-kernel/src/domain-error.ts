/**
 * Typed domain errors. Each carries a stable `code` (the last segment of the
 * problem `type` URI) and a `kind` that the HTTP layer maps to a status code
 * in exactly one place (the problem-details filter).
 */
export type DomainErrorKind = 'validation' | 'not_found' | 'conflict' | 'forbidden';

/** One invalid input member, located by an RFC 6901 JSON Pointer into the request body. */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    readonly code: string,
    message: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** 422: the request is well-formed but violates a business rule or a field constraint. */
export class ValidationError extends DomainError {
  constructor(message: string, errors: readonly FieldError[] = [], code = 'validation-failed') {
    super('validation', code, message, errors);
  }

  static at(pointer: string, detail: string, code = 'validation-failed'): ValidationError {
    return new ValidationError(detail, [{ pointer, detail }], code);
  }
}

/** 409: the request conflicts with the current state of the resource. */
export class ConflictError extends DomainError {
  constructor(code: string, message: string) {
    super('conflict', code, message);
  }
}

/** 404: the resource does not exist in the caller's environment. */
export class NotFoundError extends DomainError {
  constructor(resource: string, id: string) {
    super('not_found', 'not-found', `${resource} ${id} was not found`);
  }
}
