/** Small JSON helpers shared by validation and the deciders. */

/**
 * The detail of a field error for a property the body must not have: the
 * service's one wording (the platform's validation pipe says the same for
 * the other contexts' bodies).
 */
export { UNKNOWN_PROPERTY } from '@billing/shared-kernel';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own properties only: `body.constructor` must not find Object.prototype's. */
export function own(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

export function has(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * Structural equality of JSON values, blind to object key order: state folded
 * from Postgres jsonb comes back with keys reordered, and that must not look
 * like a change.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => has(b, k) && jsonEqual(a[k], b[k]));
}

/**
 * Why a value is not a string of min..max characters, or undefined when it is.
 * Characters are Unicode code points (what a user counts), not UTF-16 units.
 */
export function textProblem(value: unknown, min: number, max: number): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  // Cheap guard before counting: a code point is at most 2 UTF-16 units.
  const length = value.length > 2 * max ? Infinity : [...value].length;
  if (length >= min && length <= max) return undefined;
  return min > 0 ? `must be ${min} to ${max} characters long` : `must be at most ${max} characters long`;
}
