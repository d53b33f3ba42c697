import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { InvoiceView } from '@billing/invoicing';
import { TemplateGroup } from '../domain';
import { SANDBOX_LIMITS, TemplateRenderError } from './liquid-sandbox';
import { RenderedInvoiceDocument } from './render-document';

interface Job {
  readonly id: number;
  readonly message: Record<string, unknown>;
  readonly resolve: (document: RenderedInvoiceDocument) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker | null;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

const RENDER_THREADS = Math.max(1, Math.min(4, Number(process.env.TEMPLATE_RENDER_THREADS ?? 1) || 1));

/** The pool is shutting down: the render did not happen (a reactor's batch is rolled back and redone by the next process). */
export class RenderPoolClosedError extends Error {
  constructor() {
    super('the render pool is shutting down');
    this.name = 'RenderPoolClosedError';
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Renders documents on worker threads (TEMPLATE_RENDER_THREADS, default 1),
 * so the event loop that answers requests and runs reactors never waits for
 * a render: a template at its render limit holds a worker, not the API. Jobs
 * queue in order; a thread that does not answer within ten render limits is
 * terminated and replaced, failing its job with template-limit-exceeded.
 * Threads start on first use and never keep the process alive.
 */
@Injectable()
export class RenderPool implements OnModuleDestroy {
  private readonly slots: Slot[] = Array.from({ length: RENDER_THREADS }, () => ({ worker: null, job: null, timer: null }));
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** A render that neither finishes nor hits liquidjs's own limit within this is ended by terminating its thread. */
  protected hardTimeoutMs = SANDBOX_LIMITS.renderLimitMs * 10;

  render(invoice: InvoiceView, environmentId: string, group: Pick<TemplateGroup, 'id' | 'locale' | 'templates'> | null, options: { fallBackToBuiltIn: boolean; documentDate: Date }): Promise<RenderedInvoiceDocument> {
    return new Promise<RenderedInvoiceDocument>((resolve, reject) => {
      if (this.closed) return reject(new RenderPoolClosedError());
      const id = this.nextId++;
      const message = {
        id,
        invoice,
        environmentId,
        group: group ? { id: group.id, locale: group.locale, templates: group.templates } : null,
        fallBackToBuiltIn: options.fallBackToBuiltIn,
        documentDate: options.documentDate.toISOString(),
      };
      this.queue.push({ id, message, resolve, reject });
      this.dispatch();
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new RenderPoolClosedError());
    await Promise.all(this.slots.map((slot) => this.stop(slot, new RenderPoolClosedError())));
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      const worker = slot.worker ?? this.start(slot);
      slot.timer = setTimeout(() => {
        void this.stop(slot, new TemplateRenderError('template-limit-exceeded', `The template was stopped: no answer within ${this.hardTimeoutMs} ms.`));
        this.dispatch();
      }, this.hardTimeoutMs);
      worker.postMessage(job.message);
    }
  }

  private start(slot: Slot): Worker {
    const worker = new Worker(join(__dirname, 'render-worker.js'));
    worker.unref();
    worker.on('message', (answer: { id: number; result?: RenderedInvoiceDocument; error?: { code: string | null; message: string } }) => {
      const job = slot.job;
      if (!job || job.id !== answer.id) return;
      this.finish(slot);
      if (answer.error) {
        const { code, message } = answer.error;
        job.reject(code === 'template-render-failed' || code === 'template-limit-exceeded' ? new TemplateRenderError(code, message) : new Error(message));
      } else {
        const result = answer.result!;
        job.resolve({ ...result, pdf: toBuffer(result.pdf), html: toBuffer(result.html) });
      }
      this.dispatch();
    });
    worker.on('error', (error) => {
      void this.stop(slot, error);
      this.dispatch();
    });
    slot.worker = worker;
    return worker;
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
  }

  /** Ends a slot's thread, failing its job with `error`; the next job starts a new thread. */
  private async stop(slot: Slot, error: Error): Promise<void> {
    const { worker, job } = slot;
    this.finish(slot);
    slot.worker = null;
    job?.reject(error);
    if (worker) await worker.terminate();
  }
}
