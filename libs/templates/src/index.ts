/**
 * The published surface of the templates context: the one file other packages import, as
 * `@billing/templates` (which ones may: context-map.js). It holds template groups with their events
 * (domain), the document renderer and render pool (for the benchmark and tests), and the context's
 * definition.
 */
export * from './domain';
export { templatesContext } from './templates.context';
export { templatesMigrations } from './migrations';
// The renderer and a document's budget, for the render-time benchmark (test/bench/render-documents.ts).
export { renderInvoiceDocument } from './rendering/render-document';
export { documentBudget } from './rendering/document-budget';
// The render pool, for what it reports (threads started: a terminated thread's replacement counts).
export { RenderPool } from './rendering/render-pool';
// A booked invoice's recorded document, for the hosted invoice page (payments).
export { RecordedInvoiceDocumentQuery } from './documents/recorded-invoice-document.query';
export type { RecordedInvoiceDocument } from './documents/recorded-invoice-document.query';
// Money and dates as documents show them, for the hosted invoice page's frame.
export { formatMoney, formatDate, resolveLocale } from './rendering/formatting';
// A booked invoice's e-mail (body, subject, recorded PDF), for the e-mail context.
export { InvoiceEmailQuery } from './invoice-email/invoice-email.query';
export type { InvoiceEmailContent } from './invoice-email/invoice-email.query';
