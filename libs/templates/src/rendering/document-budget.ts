import type { InvoiceView } from '@billing/invoicing';

/**
 * What one document may cost, by the size of its invoice: a long invoice may
 * print more and take longer, a template may not. The built-in template
 * prints about 260 characters and a sixteenth of a page per invoice line and
 * lays out 50 lines in well under a second; these allow many times that.
 * The template's own cost (liquidjs's limits) is in SANDBOX_LIMITS.
 */
export const DOCUMENT_BUDGET = Object.freeze({
  outputCharacters: 50_000,
  outputCharactersPerLine: 5_000,
  pages: 20,
  pagesPerLine: 1,
  /** Added to TEMPLATE_RENDER_TIMEOUT_MS for each invoice line. */
  msPerLine: 10,
});

export interface DocumentBudget {
  /** The HTML a template may produce (characters), the input of the PDF layout. */
  readonly outputCharacters: number;
  readonly pages: number;
  /** The whole render, template and layout; past it the render thread is terminated. */
  readonly timeMs: number;
}

export function documentBudget(invoice: Pick<InvoiceView, 'items'>, timeoutMs: number): DocumentBudget {
  const lines = invoice.items.length;
  return {
    outputCharacters: DOCUMENT_BUDGET.outputCharacters + DOCUMENT_BUDGET.outputCharactersPerLine * lines,
    pages: DOCUMENT_BUDGET.pages + DOCUMENT_BUDGET.pagesPerLine * lines,
    timeMs: timeoutMs + DOCUMENT_BUDGET.msPerLine * lines,
  };
}
