import type { InvoiceView } from '@billing/invoicing';
import { createHash } from 'node:crypto';
import { DEFAULT_LOCALE, TemplateGroup, templateOfType, TemplateType } from '../domain';
import { BUILT_IN_TEMPLATES, labelsFor } from './default-templates';
import { documentVariables } from './document-variables';
import { htmlToPdf } from './html-to-pdf';
import { renderTemplate, TemplateRenderError } from './liquid-sandbox';

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
 * Renders an invoice with a group (null: the built-in templates). A group's
 * template that fails throws TemplateRenderError (a 422 for a live render),
 * unless `fallBackToBuiltIn`: then the built-in template is used in the
 * group's locale and the failure is recorded in `fallback`.
 */
export async function renderInvoiceDocument(
  invoice: InvoiceView,
  environmentId: string,
  group: Pick<TemplateGroup, 'id' | 'locale' | 'templates'> | null,
  options: { readonly fallBackToBuiltIn: boolean; readonly documentDate: Date },
): Promise<RenderedInvoiceDocument> {
  const templateType = documentTypeOf(invoice);
  const locale = group?.locale ?? DEFAULT_LOCALE;
  const settings = { locale, currency: invoice.currency };
  const variables = documentVariables(invoice, environmentId, locale);
  let html: string;
  let fallback: RenderedInvoiceDocument['fallback'] = null;
  const content = group ? (templateOfType(group, templateType)?.content ?? BUILT_IN_TEMPLATES[templateType]) : BUILT_IN_TEMPLATES[templateType];
  try {
    html = renderTemplate(content, variables, settings);
  } catch (error) {
    if (!(error instanceof TemplateRenderError) || !options.fallBackToBuiltIn || !group) throw error;
    fallback = { templateGroupId: group.id, reason: error.message };
    html = renderTemplate(BUILT_IN_TEMPLATES[templateType], variables, settings);
  }
  const labels = labelsFor(locale);
  const title = `${invoice.type === 'credit_note' ? labels.creditNote : labels.invoice} ${invoice.handle ?? labels.draft}`;
  const htmlBytes = Buffer.from(html, 'utf8');
  let pdf: Buffer;
  try {
    pdf = await htmlToPdf(html, { title, createdAt: options.documentDate, locale });
  } catch (error) {
    // The layout refusing what a template produced is the template's fault, like a render failure.
    throw new TemplateRenderError('template-render-failed', `The rendered HTML could not be laid out as a PDF: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { templateType, templateGroupId: group?.id ?? null, locale, html: htmlBytes, pdf, sha256: sha256(pdf), htmlSha256: sha256(htmlBytes), fallback };
}
