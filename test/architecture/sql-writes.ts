import ts from 'typescript';

/** A statement that changes a table, found in a string or template literal of a source file. */
export interface SqlWrite {
  readonly statement: 'insert' | 'update' | 'delete' | 'merge' | 'copy' | 'truncate';
  /** As written: `invoice_number_sequences`, `"schema"."table"`, `${this.table}` when interpolated, `a, b` truncated together. */
  readonly table: string;
  /** 1-based line of the literal the statement starts in. */
  readonly line: number;
}

// A table's name: plain, quoted or interpolated, optionally schema-qualified; `truncate` takes a list.
const NAME = String.raw`(?:"[^"]+"|\$\{[^}]*\}|[a-z_][\w$]*)`;
const QUALIFIED = String.raw`${NAME}(?:\.${NAME})?`;
const TABLE = `(${QUALIFIED})`;
const TABLES = String.raw`(${QUALIFIED}(?:\s*,\s*${QUALIFIED})*)`;

/**
 * The shapes of SQL that write, over the whole text of a literal (newlines are whitespace, case is ignored):
 * `update … set` needs its `set` after the table (and an alias), so `for update` and an upsert's `do update set`
 * are not statements of their own; `copy` writes only `from` a source.
 */
const WRITES: readonly { readonly statement: SqlWrite['statement']; readonly pattern: RegExp }[] = [
  { statement: 'insert', pattern: new RegExp(String.raw`\binsert\s+into\s+${TABLE}`, 'gi') },
  { statement: 'update', pattern: new RegExp(String.raw`\bupdate\s+(?:only\s+)?${TABLE}(?:\s+(?:as\s+)?[a-z_]\w*)?\s+set\b`, 'gi') },
  { statement: 'delete', pattern: new RegExp(String.raw`\bdelete\s+from\s+(?:only\s+)?${TABLE}`, 'gi') },
  { statement: 'merge', pattern: new RegExp(String.raw`\bmerge\s+into\s+${TABLE}`, 'gi') },
  { statement: 'copy', pattern: new RegExp(String.raw`\bcopy\s+${TABLE}(?:\s*\([^)]*\))?\s+from\b`, 'gi') },
  { statement: 'truncate', pattern: new RegExp(String.raw`\btruncate\s+(?:table\s+)?(?:only\s+)?${TABLES}`, 'gi') },
];

/**
 * Every SQL write in a TypeScript source, read from its syntax tree rather than its lines: comments never count,
 * and a statement is found however it is written — a string, a template literal over many lines (an interpolation
 * is kept as `${…}`), or strings joined with `+` — wherever it is passed (`query`, `queryRows`, a constant).
 */
export function sqlWrites(source: string, fileName = 'source.ts'): SqlWrite[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: SqlWrite[] = [];
  const visit = (node: ts.Node): void => {
    const parts = literalParts(node, file);
    if (parts === undefined) return ts.forEachChild(node, visit);
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    const text = parts.map((part) => part.text).join('');
    const holes = holesOf(parts);
    for (const { statement, pattern } of WRITES) {
      for (const match of text.matchAll(pattern)) {
        // A statement inside an interpolation is its own literal's, found when the interpolation is visited.
        if (!holes.some(([from, to]) => match.index >= from && match.index < to)) found.push({ statement, table: match[1], line });
      }
    }
    for (const part of parts) if (part.hole) visit(part.hole);
  };
  visit(file);
  return found.sort((a, b) => a.line - b.line);
}

/** A piece of a literal's text: literal text, or an interpolated expression (`hole`) written as `${…}`. */
interface Part {
  readonly text: string;
  readonly hole?: ts.Expression;
}

/** The parts of a string or template literal, or of a `+` chain holding one; undefined for any other node. */
function literalParts(node: ts.Node, file: ts.SourceFile): Part[] | undefined {
  const hole = (expression: ts.Expression): Part => ({ text: `\${${expression.getText(file)}}`, hole: expression });
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [{ text: node.text }];
  if (ts.isTemplateExpression(node)) {
    return [{ text: node.head.text }, ...node.templateSpans.flatMap((span) => [hole(span.expression), { text: span.literal.text }])];
  }
  if (!isConcatenation(node) || isConcatenation(node.parent)) return undefined;
  const flatten = (part: ts.Expression): Part[] =>
    isConcatenation(part) ? [...flatten(part.left), ...flatten(part.right)] : (literalParts(part, file) ?? [hole(part)]);
  return flatten(node);
}

/** Where the interpolations lie in the joined text of `parts`, as [from, to) offsets. */
function holesOf(parts: readonly Part[]): [number, number][] {
  let offset = 0;
  return parts.flatMap((part) => {
    const from = offset;
    offset += part.text.length;
    return part.hole ? [[from, offset] as [number, number]] : [];
  });
}

function isConcatenation(node: ts.Node | undefined): node is ts.BinaryExpression {
  return (
    node !== undefined &&
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
    [node.left, node.right].some((side) => ts.isStringLiteral(side) || ts.isTemplateLiteral(side) || isConcatenation(side))
  );
}
