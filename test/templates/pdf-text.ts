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
  const parse = require('pdf-parse/lib/pdf-parse.js') as (data: Buffer) => Promise<{ text: string; numpages: number }>;
  return (await parse(pdf)).text;
}
