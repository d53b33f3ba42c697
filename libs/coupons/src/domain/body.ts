import { childPointer, FieldError, isSupportedCurrency, isUuid, MAX_AMOUNT, parseTimestamp, UNKNOWN_PROPERTY } from '@billing/shared-kernel';

/**
 * The checks the coupons' request bodies share. Each pushes its problem (at
 * its JSON pointer) onto `errors` and answers the value, or undefined when it
 * is not valid: a request learns every problem at once.
 */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own properties only: `body.constructor` must not find Object.prototype's. */
export function own(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/** Every member not in `accepted` is a 422 at its pointer. */
export function refuseUnknown(object: JsonObject, accepted: readonly string[], pointer: string, errors: FieldError[]): void {
  for (const key of Object.keys(object)) if (!accepted.includes(key)) errors.push({ pointer: childPointer(pointer, key), detail: UNKNOWN_PROPERTY });
}

/** A string of min..max code points. */
export function text(value: unknown, pointer: string, min: number, max: number, errors: FieldError[]): string | undefined {
  const length = typeof value === 'string' ? [...value].length : -1;
  if (length >= min && length <= max) return value as string;
  errors.push({ pointer, detail: typeof value === 'string' ? `must be ${min} to ${max} characters long` : 'must be a string' });
  return undefined;
}

/** What a customer types: letters, digits, `-` and `_`. */
export const CODE_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

export function code(value: unknown, pointer: string, errors: FieldError[]): string | undefined {
  if (typeof value === 'string' && CODE_PATTERN.test(value)) return value;
  errors.push({ pointer, detail: 'must be 1 to 100 letters, digits, - or _' });
  return undefined;
}

/** An integer in min..max. */
export function integer(value: unknown, pointer: string, min: number, max: number, errors: FieldError[]): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  errors.push({ pointer, detail: `must be an integer from ${min} to ${max}` });
  return undefined;
}

/** An RFC 3339 date-time, as the ISO string of its instant. */
export function instant(value: unknown, pointer: string, errors: FieldError[]): string | undefined {
  const at = typeof value === 'string' ? parseTimestamp(value) : null;
  if (at !== null && value !== null && /T/.test(value as string)) return at.toISOString();
  errors.push({ pointer, detail: 'must be an RFC 3339 date-time with Z or an offset, e.g. 2026-12-31T23:59:59Z' });
  return undefined;
}

/** `{currency: minor units}`: 1 to 50 supported ISO 4217 codes (keys uppercased), each an integer from 1 to the largest amount. */
export function amountsByCurrency(value: unknown, pointer: string, errors: FieldError[]): Readonly<Record<string, number>> | undefined {
  if (!isJsonObject(value) || Object.keys(value).length === 0 || Object.keys(value).length > 50) {
    errors.push({ pointer, detail: 'must be an object of 1 to 50 members {currency: amount in minor units}, e.g. {"EUR": 1000}' });
    return undefined;
  }
  const amounts: Record<string, number> = {};
  let valid = true;
  for (const [currency, amount] of Object.entries(value)) {
    const at = childPointer(pointer, currency);
    if (!isSupportedCurrency(currency.toLowerCase())) {
      errors.push({ pointer: at, detail: 'must be a supported ISO 4217 currency code' });
      valid = false;
    } else if (Object.hasOwn(amounts, currency.toUpperCase())) {
      errors.push({ pointer: at, detail: 'names a currency given twice' });
      valid = false;
    } else if (integer(amount, at, 1, Number(MAX_AMOUNT), errors) === undefined) valid = false;
    else amounts[currency.toUpperCase()] = amount as number;
  }
  return valid ? amounts : undefined;
}

/** A list of 1..max distinct uuids (lowercased). */
export function uuids(value: unknown, pointer: string, max: number, errors: FieldError[]): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > max) {
    errors.push({ pointer, detail: `must be an array of 1 to ${max} ids` });
    return undefined;
  }
  const ids: string[] = [];
  value.forEach((id, index) => {
    if (typeof id !== 'string' || !isUuid(id)) errors.push({ pointer: childPointer(pointer, index), detail: 'must be a UUID' });
    else if (ids.includes(id.toLowerCase())) errors.push({ pointer: childPointer(pointer, index), detail: 'is listed twice' });
    else ids.push(id.toLowerCase());
  });
  return ids.length === value.length ? ids : undefined;
}
