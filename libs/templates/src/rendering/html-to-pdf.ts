import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { create as createFont } from 'fontkit';
import { parseDocument } from 'htmlparser2';
import PDFDocument from 'pdfkit';

/**
 * The PDF of a rendered template, without a browser: the template's HTML
 * (a small documented subset) is parsed with htmlparser2 and laid out with
 * pdfkit in DejaVu Sans, a Unicode TrueType font shipped as an npm package
 * (Latin, Greek, Cyrillic, the euro sign, U+00A0 and U+202F that Intl puts
 * in numbers), embedded as a subset, so text is extractable (pdftotext).
 *
 * Understood: h1–h3, p, div (paragraphs), table/thead/tbody/tr/th/td (with
 * `width="NN%"` on a cell of the first row, and `align` left|center|right on
 * cells, p and div), strong/b, em/i, br, hr. Any other element's text is kept
 * as text; script and style are dropped. Whitespace collapses as in HTML.
 */

interface DomNode {
  readonly type: string;
  readonly name?: string;
  readonly data?: string;
  readonly attribs?: Record<string, string>;
  readonly children?: readonly DomNode[];
}

interface Run {
  readonly text: string;
  readonly bold: boolean;
  readonly italic: boolean;
}
type Align = 'left' | 'center' | 'right';
interface Cell {
  readonly runs: Run[];
  readonly header: boolean;
  readonly align: Align;
  readonly width: number | null;
}
type Block =
  | { readonly kind: 'text'; readonly runs: Run[]; readonly size: number; readonly align: Align; readonly spaceAfter: number }
  | { readonly kind: 'table'; readonly rows: Cell[][] }
  | { readonly kind: 'rule' };

const HEADING_SIZES: Record<string, number> = { h1: 20, h2: 15, h3: 12 };
const BODY_SIZE = 9.5;
const MARGIN = 50;
const CELL_PADDING = 3;

function fontDirectory(): string {
  return join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
}
type FontFace = 'regular' | 'bold' | 'italic' | 'boldItalic';
const FACE_FILES: Record<FontFace, string> = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
  italic: 'DejaVuSans-Oblique.ttf',
  boldItalic: 'DejaVuSans-BoldOblique.ttf',
};
/**
 * The parsed fonts, shared by every document (pdfkit takes a fontkit font as
 * well as a file): parsing a face and its layout tables is most of the cost
 * of a small document, and each document still embeds its own subset.
 */
let fonts: Record<FontFace, unknown> | null = null;
function loadFonts(): Record<FontFace, unknown> {
  if (!fonts) {
    const directory = fontDirectory();
    const load = (face: FontFace) => createFont(readFileSync(join(directory, FACE_FILES[face])));
    fonts = { regular: load('regular'), bold: load('bold'), italic: load('italic'), boldItalic: load('boldItalic') };
  }
  return fonts;
}

function alignOf(node: DomNode, fallback: Align): Align {
  const value = node.attribs?.align?.toLowerCase();
  return value === 'right' || value === 'center' || value === 'left' ? value : fallback;
}

function widthOf(node: DomNode): number | null {
  const match = /^\s*(\d{1,3}(?:\.\d+)?)\s*%\s*$/.exec(node.attribs?.width ?? '');
  return match ? Math.min(100, Number(match[1])) / 100 : null;
}

/** Inline content of a node as styled runs (whitespace collapsed later, per block). */
function inlineRuns(nodes: readonly DomNode[], style: { bold: boolean; italic: boolean }, runs: Run[]): Run[] {
  for (const node of nodes) {
    if (node.type === 'text') runs.push({ text: node.data ?? '', ...style });
    else if (node.type === 'tag') {
      const name = node.name ?? '';
      if (name === 'br') runs.push({ text: '\n', ...style });
      else
        inlineRuns(
          node.children ?? [],
          { bold: style.bold || name === 'strong' || name === 'b' || name === 'th', italic: style.italic || name === 'em' || name === 'i' },
          runs,
        );
    }
  }
  return runs;
}

/**
 * pdfkit breaks a word wider than its line character by character, measuring
 * ever longer prefixes: quadratic in the word's length (200 000 characters
 * without a space took minutes and gigabytes). A zero-width space every 64
 * characters gives it a place to break instead; words that long
 * are never prose (IBANs and URLs are shorter).
 */
const LONG_WORD = /[^ \t\n\r\f]{64}(?=[^ \t\n\r\f])/g;

/** HTML whitespace (space, tab, newlines; not U+00A0 or U+202F) collapses to one space; lines are trimmed. */
function normalise(runs: Run[]): Run[] {
  const collapsed = runs.map((run) => (run.text === '\n' ? run : { ...run, text: run.text.replace(/[ \t\n\r\f]+/g, ' ').replace(LONG_WORD, '$&\u200b') }));
  const out: Run[] = [];
  let atLineStart = true;
  for (const run of collapsed) {
    if (run.text === '\n') {
      if (out.length > 0) out[out.length - 1] = { ...out[out.length - 1], text: out[out.length - 1].text.replace(/ +$/, '') };
      out.push(run);
      atLineStart = true;
      continue;
    }
    const text = atLineStart ? run.text.replace(/^ +/, '') : run.text;
    if (text === '') continue;
    out.push({ ...run, text });
    atLineStart = false;
  }
  while (out.length > 0 && (out[out.length - 1].text === '\n' || out[out.length - 1].text.trim() === '')) out.pop();
  if (out.length > 0) out[out.length - 1] = { ...out[out.length - 1], text: out[out.length - 1].text.replace(/ +$/, '') };
  return out;
}

const BLOCK_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div', 'table', 'hr', 'ul', 'ol', 'li', 'section', 'header', 'footer', 'body', 'html']);
const DROPPED = new Set(['script', 'style', 'head', 'title']);

function tableRows(table: DomNode): Cell[][] {
  const rows: Cell[][] = [];
  const visit = (node: DomNode): void => {
    for (const child of node.children ?? []) {
      if (child.type !== 'tag') continue;
      if (child.name === 'tr') {
        const cells = (child.children ?? [])
          .filter((cell) => cell.type === 'tag' && (cell.name === 'td' || cell.name === 'th'))
          .map((cell) => ({
            runs: normalise(inlineRuns(cell.children ?? [], { bold: cell.name === 'th', italic: false }, [])),
            header: cell.name === 'th',
            align: alignOf(cell, 'left'),
            width: widthOf(cell),
          }));
        if (cells.length > 0) rows.push(cells);
      } else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') visit(child);
    }
  };
  visit(table);
  return rows;
}

/** The blocks of a document, in order: inline content between blocks becomes a paragraph. */
function blocksOf(nodes: readonly DomNode[], align: Align, blocks: Block[]): Block[] {
  let pending: DomNode[] = [];
  const flush = () => {
    const runs = normalise(inlineRuns(pending, { bold: false, italic: false }, []));
    if (runs.length > 0) blocks.push({ kind: 'text', runs, size: BODY_SIZE, align, spaceAfter: 4 });
    pending = [];
  };
  for (const node of nodes) {
    if (node.type === 'script' || node.type === 'style' || node.type === 'comment' || node.type === 'directive') continue;
    const name = node.type === 'tag' ? (node.name ?? '') : '';
    if (DROPPED.has(name)) continue;
    if (!BLOCK_TAGS.has(name)) {
      pending.push(node);
      continue;
    }
    flush();
    if (name === 'hr') blocks.push({ kind: 'rule' });
    else if (name === 'table') blocks.push({ kind: 'table', rows: tableRows(node) });
    else if (HEADING_SIZES[name] !== undefined || name === 'h4' || name === 'h5' || name === 'h6') {
      const runs = normalise(inlineRuns(node.children ?? [], { bold: true, italic: false }, []));
      if (runs.length > 0) blocks.push({ kind: 'text', runs, size: HEADING_SIZES[name] ?? BODY_SIZE + 1, align: alignOf(node, align), spaceAfter: 8 });
    } else if (name === 'li') {
      const runs = normalise(inlineRuns(node.children ?? [], { bold: false, italic: false }, []));
      if (runs.length > 0) blocks.push({ kind: 'text', runs: [{ text: '• ', bold: false, italic: false }, ...runs], size: BODY_SIZE, align, spaceAfter: 2 });
    } else blocksOf(node.children ?? [], alignOf(node, align), blocks);
  }
  flush();
  return blocks;
}

export interface PdfMetadata {
  readonly title: string;
  /** The document's date (the invoice's booking or creation): never the wall clock, so a rendering is reproducible. */
  readonly createdAt: Date;
  readonly locale: string;
  /** The layout stops with PageLimitError when the document would need more pages. */
  readonly maxPages: number;
}

/** The HTML needs more pages than the document may have. */
export class PageLimitError extends Error {
  constructor(readonly maxPages: number) {
    super(`the document needs more than ${maxPages} pages`);
    this.name = 'PageLimitError';
  }
}

type Doc = InstanceType<typeof PDFDocument>;

function fontName(run: { bold: boolean; italic: boolean }): string {
  return run.bold ? (run.italic ? 'boldItalic' : 'bold') : run.italic ? 'italic' : 'regular';
}

/** The runs of each line (split at <br>). */
function linesOf(runs: Run[]): Run[][] {
  const lines: Run[][] = [[]];
  for (const run of runs) {
    if (run.text === '\n') lines.push([]);
    else lines[lines.length - 1].push(run);
  }
  return lines;
}

/**
 * Writes styled runs at (x, y) within width: line by line (a <br> starts the
 * next one where pdfkit left off), pdfkit continuing a line across font changes.
 */
function writeRuns(doc: Doc, runs: Run[], x: number, y: number, width: number, size: number, align: Align): void {
  doc.fontSize(size);
  linesOf(runs).forEach((line, lineIndex) => {
    const parts = line.length > 0 ? line : [{ text: ' ', bold: false, italic: false }];
    parts.forEach((run, index) => {
      doc.font(fontName(run));
      const options = { width, align, continued: index < parts.length - 1, lineGap: 1 };
      if (index === 0) doc.text(run.text, x, lineIndex === 0 ? y : doc.y, options);
      else doc.text(run.text, options);
    });
  });
}

function heightOfRuns(doc: Doc, runs: Run[], width: number, size: number): number {
  if (runs.length === 0) return size;
  const bold = runs.some((run) => run.bold);
  doc.font(bold ? 'bold' : 'regular').fontSize(size);
  return linesOf(runs).reduce((sum, line) => sum + doc.heightOfString(line.map((run) => run.text).join('') || ' ', { width, lineGap: 1 }), 0);
}

function columnWidths(rows: Cell[][], total: number): number[] {
  const count = Math.max(...rows.map((row) => row.length));
  const given = rows[0].map((cell) => cell.width);
  const fixed = given.slice(0, count).reduce<number>((sum, width) => sum + (width ?? 0), 0);
  const free = Array.from({ length: count }, (_, i) => given[i] ?? null).filter((width) => width === null).length;
  const rest = free > 0 ? Math.max(0, 1 - fixed) / free : 0;
  return Array.from({ length: count }, (_, i) => (given[i] ?? rest) * total);
}

function layout(doc: Doc, blocks: Block[]): void {
  const left = MARGIN;
  const width = doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - MARGIN;
  let y = MARGIN;
  const ensure = (height: number) => {
    if (y + height > bottom() && y > MARGIN) {
      doc.addPage();
      y = MARGIN;
    }
  };
  for (const block of blocks) {
    if (block.kind === 'rule') {
      ensure(8);
      doc
        .moveTo(left, y + 3)
        .lineTo(left + width, y + 3)
        .lineWidth(0.5)
        .stroke();
      y += 8;
    } else if (block.kind === 'text') {
      const height = heightOfRuns(doc, block.runs, width, block.size);
      ensure(height);
      writeRuns(doc, block.runs, left, y, width, block.size, block.align);
      y += height + block.spaceAfter;
    } else if (block.rows.length > 0) {
      const widths = columnWidths(block.rows, width);
      for (const row of block.rows) {
        const heights = row.map((cell, i) => heightOfRuns(doc, cell.runs, Math.max(10, (widths[i] ?? 0) - 2 * CELL_PADDING), BODY_SIZE));
        const height = Math.max(BODY_SIZE, ...heights) + 2 * CELL_PADDING;
        ensure(height);
        let x = left;
        row.forEach((cell, i) => {
          const cellWidth = widths[i] ?? 0;
          if (cell.runs.length > 0)
            writeRuns(doc, cell.runs, x + CELL_PADDING, y + CELL_PADDING, Math.max(10, cellWidth - 2 * CELL_PADDING), BODY_SIZE, cell.align);
          x += cellWidth;
        });
        y += height;
        if (row.some((cell) => cell.header)) {
          doc
            .moveTo(left, y)
            .lineTo(left + width, y)
            .lineWidth(0.5)
            .stroke();
          y += 1;
        }
      }
      y += 8;
    }
  }
}

/** The HTML as an A4 PDF. Deterministic: the same HTML and metadata give the same bytes. */
export function htmlToPdf(html: string, metadata: PdfMetadata): Promise<Buffer> {
  const blocks = blocksOf(parseDocument(html).children as unknown as DomNode[], 'left', []);
  const faces = loadFonts();
  return new Promise<Buffer>((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      autoFirstPage: true,
      lang: metadata.locale,
      info: { Title: metadata.title, Creator: 'billing-service', Producer: 'billing-service', CreationDate: metadata.createdAt },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    // pdfkit's typings name files and buffers only; at run time it takes a fontkit font (PDFFontFactory.open).
    for (const face of Object.keys(FACE_FILES) as FontFace[]) doc.registerFont(face, faces[face] as Buffer);
    // pdfkit adds pages itself within a long text, so pages are counted where they are added.
    let pages = 1;
    doc.on('pageAdded', () => {
      if (++pages > metadata.maxPages) throw new PageLimitError(metadata.maxPages);
    });
    try {
      layout(doc, blocks);
    } catch (error) {
      reject(error);
      return;
    }
    doc.end();
  });
}
