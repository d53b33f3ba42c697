import { ValidationPipe, ValidationError as ClassValidatorError } from '@nestjs/common';
import { childPointer, FieldError, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';

export function toFieldErrors(errors: readonly ClassValidatorError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    const pointer = childPointer(prefix, error.property);
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      pointer,
      detail: message.replace(/^property (\S+) should not exist$/, UNKNOWN_PROPERTY).replace(new RegExp(`^${escapeRegExp(error.property)} `), ''),
    }));
    return [...own, ...toFieldErrors(error.children ?? [], pointer)];
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * class-validator DTOs for request bodies: unknown properties are rejected
 * (the interface accepts no others), and every failure becomes a 422 problem
 * whose `errors` point at the offending member.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validateCustomDecorators: false,
    exceptionFactory: (errors) => new ValidationError('The request is invalid.', toFieldErrors(errors)),
  });
}

/** An action that takes no input: no body, null or {} (any member is a 422 at its pointer). */
export function assertNoInput(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) throw ValidationError.at('', 'the request body must be empty or {}');
  const unknown = Object.keys(body).map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY }));
  if (unknown.length > 0) throw new ValidationError('This action accepts no properties', unknown);
}
