/** fontkit ships no types; the renderer uses only `create`, and hands the font to pdfkit. */
declare module 'fontkit' {
  export function create(buffer: Buffer, postscriptName?: string): unknown;
}
