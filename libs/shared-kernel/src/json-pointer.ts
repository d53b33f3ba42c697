/** RFC 6901 escaping of one JSON Pointer reference token: `~` as `~0`, then `/` as `~1`. */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `pointer` with one more reference token (escaped): where a member or an element of the value at `pointer` is. */
export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${pointerToken(token)}`;
}
