/**
 * A JSON object already serialized, such as a read model's view as Postgres
 * prints it (`view::text`), answered as the body byte for byte: the hottest
 * reads skip parsing the row into objects and stringifying them again. The
 * edge (edge.ts) sends it as `application/json`; a Versioned result may carry
 * one as its resource.
 */
export class JsonText {
  private constructor(readonly text: string) {}

  /** `text` must be one JSON object, as `jsonb::text` or JSON.stringify write it. */
  static ofObject(text: string): JsonText {
    if (!text.startsWith('{') || !text.endsWith('}')) throw new Error('JsonText holds one JSON object');
    return new JsonText(text);
  }

  /** The object with one more member last (the name must not be one of its members already). */
  withMember(name: string, value: unknown): JsonText {
    const member = `${JSON.stringify(name)}: ${JSON.stringify(value ?? null)}`;
    const inner = this.text.slice(1, -1);
    return new JsonText(inner.trim() === '' ? `{${member}}` : `{${inner}, ${member}}`);
  }
}
