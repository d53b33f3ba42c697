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

export type InputDefect = { readonly kind: 'too-deep'; readonly pointer: string } | { readonly kind: 'invalid-text'; readonly pointer: string };

/**
 * Walks a parsed JSON value without recursion (a hostile body may nest
 * thousands of levels) and reports the first member nested too deeply or
 * holding text that is not valid Unicode, in keys as well as values.
 */
export function findInputDefect(value: unknown, maxDepth = MAX_JSON_DEPTH): InputDefect | null {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value, pointer: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: current, pointer, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (!isValidText(current)) return { kind: 'invalid-text', pointer };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxDepth) return { kind: 'too-deep', pointer };
    const entries: [string, unknown][] = Array.isArray(current) ? current.map((item, index) => [String(index), item]) : Object.entries(current);
    for (const [key, item] of entries) {
      const at = childPointer(pointer, key);
      if (!isValidText(key)) return { kind: 'invalid-text', pointer: at };
      stack.push({ value: item, pointer: at, depth: depth + 1 });
    }
  }
  return null;
}
