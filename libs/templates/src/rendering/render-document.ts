import type { InvoiceView } from '@billing/invoicing';
import { createHash } from 'node:crypto';
import { DEFAULT_LOCALE, TemplateGroup, templateOfType, TemplateType } from '../domain';
import { BUILT_IN_TEMPLATES, labelsFor } from './default-templates';
import { documentVariables } from './document-variables';
import { DocumentBudget, documentBudget } from './document-budget';
import { htmlToPdf, PageLimitError } from './html-to-pdf';
import { renderTemplate, TemplateRenderError } from './liquid-sandbox';
import { SAMPLE_INVOICE } from './sample-invoice';

/** An invoice's document as rendered: the HTML the template produced, the PDF laid out from it, and their digests. */
export interface RenderedInvoiceDocument {
  readonly templateType: TemplateType;
  readonly templateGroupId: string | null;
  readonly locale: string;
  readonly html: Buffer;
  readonly pdf: Buffer;
  readonly sha256: string;
  readonly htmlSha256: string;
  /** Set when the group's template failed and the built-in one was used (booking never stalls on a template). */
  readonly fallback: { readonly templateGroupId: string; readonly reason: string } | null;
}

/** A credit note renders with credit_note_pdf, anything else with invoice_pdf. */
export function documentTypeOf(invoice: Pick<InvoiceView, 'type'>): TemplateType {
  return invoice.type === 'credit_note' ? 'credit_note_pdf' : 'invoice_pdf';
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Renders an invoice with a group (null: the built-in templates), within
 * `budget` (its output and pages; its time is the render pool's). A group's
 * template that fails or exceeds the budget throws TemplateRenderError (a 422
 * for a live render), unless `fallBackToBuiltIn`: then the built-in template
 * is used in the group's locale and the failure is recorded in `fallback`.
 */
export async function renderInvoiceDocument(
  invoice: InvoiceView,
  environmentId: string,
  group: Pick<TemplateGroup, 'id' | 'locale' | 'templates'> | null,
  options: { readonly fallBackToBuiltIn: boolean; readonly documentDate: Date; readonly budget: Pick<DocumentBudget, 'outputCharacters' | 'pages'> },
): Promise<RenderedInvoiceDocument> {
  const templateType = documentTypeOf(invoice);
  const locale = group?.locale ?? DEFAULT_LOCALE;
  const settings = { locale, currency: invoice.currency };
  const variables = documentVariables(invoice, environmentId, locale);
  const labels = labelsFor(locale);
  const title = `${invoice.type === 'credit_note' ? labels.creditNote : labels.invoice} ${invoice.handle ?? labels.draft}`;
  const { budget } = options;
  const render = async (content: string): Promise<{ html: string; pdf: Buffer }> => {
    const html = renderTemplate(content, variables, settings, budget.outputCharacters);
    try {
      return { html, pdf: await htmlToPdf(html, { title, createdAt: options.documentDate, locale, maxPages: budget.pages }) };
    } catch (error) {
      if (error instanceof PageLimitError)
        throw new TemplateRenderError('template-limit-exceeded', `The template was stopped: ${error.message} (at most ${error.maxPages} for this invoice).`);
      // The layout refusing what a template produced is the template's fault, like a render failure.
      throw new TemplateRenderError(
        'template-render-failed',
        `The rendered HTML could not be laid out as a PDF: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  let fallback: RenderedInvoiceDocument['fallback'] = null;
  const content = group ? (templateOfType(group, templateType)?.content ?? BUILT_IN_TEMPLATES[templateType]) : BUILT_IN_TEMPLATES[templateType];
  let document: { html: string; pdf: Buffer };
  try {
    document = await render(content);
  } catch (error) {
    if (!(error instanceof TemplateRenderError) || !options.fallBackToBuiltIn || !group) throw error;
    fallback = { templateGroupId: group.id, reason: error.message };
    document = await render(BUILT_IN_TEMPLATES[templateType]);
  }
  const htmlBytes = Buffer.from(document.html, 'utf8');
  const { pdf } = document;
  return { templateType, templateGroupId: group?.id ?? null, locale, html: htmlBytes, pdf, sha256: sha256(pdf), htmlSha256: sha256(htmlBytes), fallback };
}

/** A render thread's first render, before it takes work: fonts parsed and code compiled are not charged to a template's time. */
export async function warmUp(): Promise<void> {
  await renderInvoiceDocument(SAMPLE_INVOICE, SAMPLE_INVOICE.id, null, {
    fallBackToBuiltIn: false,
    documentDate: new Date(SAMPLE_INVOICE.createdAt),
    budget: documentBudget(SAMPLE_INVOICE, 0),
  });
}
