/**
 * The template types every group holds (public API: never renamed). A group
 * is created with the built-in default content of each; a type added later
 * reads as its built-in default in older groups until edited.
 * - invoice_pdf: an invoice's document (PDF, and its HTML preview);
 * - credit_note_pdf: a credit note's document;
 * - invoice_email_html: the body of an email announcing an invoice (kept and
 *   checked here; sending email is not part of this service yet).
 */
export const TEMPLATE_TYPES = ['invoice_pdf', 'credit_note_pdf', 'invoice_email_html'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export function isTemplateType(value: unknown): value is TemplateType {
  return typeof value === 'string' && (TEMPLATE_TYPES as readonly string[]).includes(value);
}

/** Limits of what a group holds (characters are UTF-16 code units, as Liquid counts them). */
export const TEMPLATE_LIMITS = Object.freeze({
  nameMaxLength: 250,
  localeMaxLength: 35,
  contentMaxLength: 100_000,
});

export const DEFAULT_LOCALE = 'en';
