export * from './domain';
export { templatesContext } from './templates.context';
export { templatesMigrations } from './migrations';
// The renderer and a document's budget, for the render-time benchmark (test/bench/render-documents.ts).
export { renderInvoiceDocument } from './rendering/render-document';
export { documentBudget } from './rendering/document-budget';
// The render pool, for what it reports (threads started: a terminated thread's replacement counts).
export { RenderPool } from './rendering/render-pool';
