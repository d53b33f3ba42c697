/**
 * The statement that redacts the clear payment tokens a read-model table's
 * jsonb `state` holds at `path` (rows folded from events from before tokens
 * were sealed), as readModelPaymentMethod does for rows written from now on:
 * `pmt0.<hint, base64url>`, the hint being secretHint's (the last characters,
 * at most 4 and at most a quarter of the token). Sealed (`pmt1.`) and
 * redacted tokens are left as they are.
 */
export function redactClearPaymentTokensSql(table: string, path: readonly string[]): string {
  const pointer = `{${path.join(',')}}`;
  const token = `(state #>> '${pointer}')`;
  const hint = `right(${token}, least(4, char_length(${token}) / 4))`;
  const base64url = `translate(trim(trailing '=' from encode(convert_to(${hint}, 'UTF8'), 'base64')), '+/', '-_')`;
  return `update ${table} set state = jsonb_set(state, '${pointer}', to_jsonb('pmt0.' || ${base64url}))
           where jsonb_typeof(state #> '${pointer}') = 'string' and ${token} !~ '^pmt[01]\\.'`;
}
