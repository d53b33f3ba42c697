import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Issue 20 #5, the fault class: a number read as text (`position::text`,
 * the way bigints reach Node exactly) keeps its column's name unless given
 * another, and ORDER BY resolves a bare name to the select list first, so
 * `order by position` then sorts text: '99' after '1005'. GET /audit/head
 * signed position 99 of 381, and GET /templates lost its newest groups that
 * way. Every SQL text in apps/ and libs/ is checked here for a bare ORDER BY
 * name that the same statement renders as text.
 */
const ROOT = join(__dirname, '..', '..');

/** The output names of `column::text` (its own name, or the alias after `as`). */
function textOutputs(sql: string): Set<string> {
  const names = new Set<string>();
  for (const match of sql.matchAll(/(?<=^|[\s,(])(?:\w+\.)?(\w+)::text\b(?:\s+as\s+(\w+))?/gi)) names.add((match[2] ?? match[1]).toLowerCase());
  return names;
}

/** The bare names (no table before them) a statement orders by. */
function bareOrderNames(sql: string): string[] {
  const names: string[] = [];
  for (const clause of sql.matchAll(/order\s+by\s+([\s\S]*?)(?=\blimit\b|\boffset\b|\bfor\s+update\b|\)|;|$)/gi)) {
    for (const term of clause[1].split(',')) {
      const name = /^\s*(\w+)(?:\s+collate\s+"\w+")?(?:\s+(?:asc|desc))?(?:\s+nulls\s+(?:first|last))?\s*$/i.exec(term)?.[1];
      if (name !== undefined && !/^\d+$/.test(name)) names.push(name.toLowerCase());
    }
  }
  return names;
}

/** Each SQL-looking template literal or string of a source file. */
function sqlTexts(source: string): string[] {
  return [...source.matchAll(/`[^`]*`|'[^'\n]*'/g)].map((match) => match[0]).filter((text) => /\border\s+by\b/i.test(text));
}

function textOrderings(sql: string): string[] {
  const outputs = textOutputs(sql);
  return bareOrderNames(sql).filter((name) => outputs.has(name));
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.ts$/.test(name) && !/\.spec\.ts$/.test(name) ? [path] : [];
  });
}

describe('issue 20 #5: no ordering on a number cast to text', () => {
  it('finds the faults it exists for: a bare ORDER BY name that the select list renders as text', () => {
    expect(textOrderings(`select sequence::text, hash from event_chain where environment_id = $1 order by sequence desc limit 1`)).toEqual(['sequence']);
    expect(textOrderings(`select view, position::text as position from template_groups where x order by position desc limit $2`)).toEqual(['position']);
    expect(textOrderings(`select id, n::text as label from t order by created_at, label`)).toEqual(['label']);
    // The column itself, qualified or under another name, sorts as the number it is.
    expect(textOrderings(`select view, position::text as position from prices where x order by prices.position desc limit $2`)).toEqual([]);
    expect(textOrderings(`select sequence::text as sequence_text, hash from event_chain order by sequence desc limit 1`)).toEqual([]);
    expect(textOrderings(`select code from t where code = any($1::text[]) order by code collate "C"`)).toEqual([]);
  });

  it('no SQL in apps/ or libs/ orders by a number rendered as text', () => {
    const faults = ['apps', 'libs'].flatMap((folder) =>
      sourceFiles(join(ROOT, folder)).flatMap((path) =>
        sqlTexts(readFileSync(path, 'utf8')).flatMap((sql) => textOrderings(sql).map((name) => `${relative(ROOT, path)}: order by ${name} (rendered as text)`)),
      ),
    );
    expect(faults).toEqual([]);
  });
});
