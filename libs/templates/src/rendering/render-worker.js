'use strict';
/**
 * One thread of the render pool (render-pool.ts): renders invoice documents
 * (Liquid, HTML layout, PDF) off the event loop that serves requests and runs
 * the reactors. Says {ready: true} once loaded (the pool times renders, not
 * start-ups). Messages: {id, invoice, environmentId, group, fallBackToBuiltIn,
 * documentDate, budget} in; {id, result} or {id, error: {code, message}} out.
 */
const { parentPort } = require('node:worker_threads');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

function load() {
  const compiled = join(__dirname, 'render-document.js');
  if (existsSync(compiled)) return require(compiled);
  require('./ts-require').register();
  return require('./render-document.ts');
}

const { renderInvoiceDocument, warmUp } = load();

parentPort.on('message', async (job) => {
  try {
    const result = await renderInvoiceDocument(job.invoice, job.environmentId, job.group, {
      fallBackToBuiltIn: job.fallBackToBuiltIn,
      documentDate: new Date(job.documentDate),
      budget: job.budget,
    });
    parentPort.postMessage({ id: job.id, result });
  } catch (error) {
    parentPort.postMessage({
      id: job.id,
      error: { code: typeof error?.code === 'string' ? error.code : null, message: error instanceof Error ? error.message : String(error) },
    });
  }
});
// A thread that cannot render the built-in template fails (its 'error' event), for the pool to fail a render rather than wait.
void warmUp().then(() => parentPort.postMessage({ ready: true }));
