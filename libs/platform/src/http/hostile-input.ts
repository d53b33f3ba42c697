import { childPointer } from '@billing/shared-kernel';

/** Deeper than any request this API defines (about six levels) by a wide margin. */
export const MAX_JSON_DEPTH = 32;

/**
 * U+0000 cannot be stored in Postgres text or jsonb, and an unpaired
 * surrogate is not Unicode at all (jsonb refuses it, and it cannot be encoded
 * as UTF-8): neither is text a client meant to send.
 */
const INVALID_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isValidText(text: string): boolean {
  return !INVALID_TEXT.test(text);
}

/**
 * More members than any object this API defines (a DTO has a few dozen, a
 * metadata map at most 50): a map's members are all copied by
 * class-transformer before validation can refuse them, at tens of
 * microseconds each. Arrays are not counted: their DTOs bound them.
 */
export const MAX_OBJECT_MEMBERS = 1000;

export type InputDefect = { readonly kind: 'too-deep' | 'invalid-text' | 'too-many-members'; readonly pointer: string };

/**
 * Walks a parsed JSON value without recursion (a hostile body may nest
 * thousands of levels) and reports the first member nested too deeply,
 * holding text that is not valid Unicode (in keys as well as values), or an
 * object with more than MAX_OBJECT_MEMBERS members. A pointer is built only
 * for containers and for the defect: one per member was most of the walk.
 */
export function findInputDefect(value: unknown, maxDepth = MAX_JSON_DEPTH): InputDefect | null {
  if (typeof value === 'string') return isValidText(value) ? null : { kind: 'invalid-text', pointer: '' };
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value, pointer: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: current, pointer, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxDepth) return { kind: 'too-deep', pointer };
    const isArray = Array.isArray(current);
    const keys = isArray ? null : Object.keys(current);
    if (keys && keys.length > MAX_OBJECT_MEMBERS) return { kind: 'too-many-members', pointer };
    const count = keys ? keys.length : (current as unknown[]).length;
    for (let index = 0; index < count; index++) {
      const key = keys ? keys[index] : index;
      const item = (current as Record<string | number, unknown>)[key];
      if (typeof key === 'string' && !isValidText(key)) return { kind: 'invalid-text', pointer: childPointer(pointer, key) };
      if (typeof item === 'string' && !isValidText(item)) return { kind: 'invalid-text', pointer: childPointer(pointer, key) };
      if (typeof item === 'object' && item !== null) stack.push({ value: item, pointer: childPointer(pointer, key), depth: depth + 1 });
    }
  }
  return null;
}
