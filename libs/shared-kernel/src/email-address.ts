/** RFC 5321 caps an address at 254 characters; the shape is one @ with a dotted domain and no spaces. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** The one e-mail address check (a customer's e-mail, the e-mail settings' replyTo and bcc, a send's `to`). */
export function isEmailAddress(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && EMAIL.test(value);
}
