import { childPointer, FieldError, parseDateTime, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';

const DATE_TIME_DETAIL = 'must be an RFC 3339 date-time with Z or an offset, e.g. 2027-01-31T00:00:00Z';

/** `POST /test-clock/advance`: exactly `{"to": <date-time>}`; every problem is reported at once, each at its JSON pointer. */
export function parseAdvanceBody(body: unknown): Date {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ValidationError.at('', 'the request body must be a JSON object: {"to": "<date-time>"}');
  }
  const errors: FieldError[] = Object.keys(body)
    .filter((key) => key !== 'to')
    .map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY }));
  const to: unknown = Object.prototype.hasOwnProperty.call(body, 'to') ? (body as { to: unknown }).to : undefined;
  const instant = typeof to === 'string' ? parseDateTime(to) : undefined;
  if (to === undefined || to === null) errors.push({ pointer: '/to', detail: 'is required' });
  else if (!instant) errors.push({ pointer: '/to', detail: DATE_TIME_DETAIL });
  if (errors.length > 0 || !instant) throw new ValidationError('The test clock advance is invalid', errors);
  return instant;
}
