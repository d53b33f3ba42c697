import { ArgumentMetadata, ValidationPipe, ValidationError as ClassValidatorError } from '@nestjs/common';
import { childPointer, FieldError, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { MAX_REPORTED_ERRORS, unknownMembers } from './unknown-members';

/** class-validator's errors as field errors, at most MAX_REPORTED_ERRORS of them: a problem document stays small whatever the body. */
export function toFieldErrors(errors: readonly ClassValidatorError[], prefix = ''): FieldError[] {
  const found: FieldError[] = [];
  collectFieldErrors(errors, prefix, found);
  return found.slice(0, MAX_REPORTED_ERRORS);
}

function collectFieldErrors(errors: readonly ClassValidatorError[], prefix: string, into: FieldError[]): void {
  for (const error of errors) {
    if (into.length >= MAX_REPORTED_ERRORS) return;
    const pointer = childPointer(prefix, error.property);
    for (const message of Object.values(error.constraints ?? {})) into.push({ pointer, detail: detailOf(message, error.property) });
    collectFieldErrors(error.children ?? [], pointer, into);
  }
}

/**
 * class-validator's message without the property name it starts with (the
 * pointer names it). Compared as text, never made into a pattern: a property
 * name is the client's input, and a long one made a regular expression too
 * large to compile (a 500).
 */
function detailOf(message: string, property: string): string {
  if (message === `property ${property} should not exist`) return UNKNOWN_PROPERTY;
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}

/**
 * Refuses a body with more unknown members than a problem reports before
 * class-transformer copies it (its cost grows with every member: seconds of
 * CPU for a body of 60 000), so that no body under the size limit costs more
 * than a walk over its members. Fewer go the ordinary way, reported with the
 * body's other errors.
 */
class BodyValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && typeof metadata.metatype === 'function') {
      const unknown = unknownMembers(value, metadata.metatype, MAX_REPORTED_ERRORS + 1);
      if (unknown.length > MAX_REPORTED_ERRORS) {
        throw new ValidationError(`The request has more than ${MAX_REPORTED_ERRORS} unknown members.`, unknown.slice(0, MAX_REPORTED_ERRORS));
      }
    }
    return super.transform(value, metadata);
  }
}

/**
 * class-validator DTOs for request bodies: unknown properties are rejected
 * (the interface accepts no others), and every failure becomes a 422 problem
 * whose `errors` point at the offending member.
 */
export function createValidationPipe(): ValidationPipe {
  return new BodyValidationPipe({
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
  const unknown = Object.keys(body)
    .slice(0, MAX_REPORTED_ERRORS)
    .map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY }));
  if (unknown.length > 0) throw new ValidationError('This action accepts no properties', unknown);
}
