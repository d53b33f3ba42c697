/**
 * The text of a PDF, as pdftotext would show it: poppler's pdftotext when it
 * is on the PATH, else pdf.js (through pdf-parse, a CommonJS build Jest can
 * require). Used to check that documents are text-extractable.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function hasPdftotext(): boolean {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function pdfText(pdf: Buffer): Promise<string> {
  if (hasPdftotext()) {
    const directory = mkdtempSync(join(tmpdir(), 'pdf-text-'));
    try {
      const file = join(directory, 'document.pdf');
      writeFileSync(file, pdf);
      return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const parse = require('pdf-parse/lib/pdf-parse.js') as (
    data: Buffer,
    options: { pagerender: (page: PdfPage) => Promise<string> },
  ) => Promise<{ text: string }>;
  return (await parse(pdf, { pagerender: layoutText })).text;
}

interface PdfTextItem {
  readonly str: string;
  readonly transform: number[];
  readonly width: number;
}
interface PdfPage {
  getTextContent(options: { normalizeWhitespace: boolean; disableCombineTextItems: boolean }): Promise<{ items: PdfTextItem[] }>;
}

/** Like pdftotext -layout, roughly: items on one baseline form a line, left to right, a gap between them a space. */
async function layoutText(page: PdfPage): Promise<string> {
  const { items } = await page.getTextContent({ normalizeWhitespace: false, disableCombineTextItems: false });
  const lines = new Map<number, PdfTextItem[]>();
  for (const item of items) {
    const y = Math.round(item.transform[5]);
    lines.set(y, [...(lines.get(y) ?? []), item]);
  }
  return [...lines.entries()]
    .sort(([a], [b]) => b - a)
    .map(([, line]) => {
      const sorted = line.sort((a, b) => a.transform[4] - b.transform[4]);
      let text = '';
      let end: number | null = null;
      for (const item of sorted) {
        if (end !== null && item.transform[4] - end > 1) text += '  ';
        text += item.str;
        end = item.transform[4] + item.width;
      }
      return text;
    })
    .join('\n');
}
