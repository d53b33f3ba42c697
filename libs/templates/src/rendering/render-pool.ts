import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { InvoiceView } from '@billing/invoicing';
import { APP_CONFIG, AppConfig, HttpProblem, TemplateRenderingConfig } from '@billing/platform';
import { TemplateGroup } from '../domain';
import { documentBudget } from './document-budget';
import { FairQueue } from './fair-queue';
import { TemplateRenderError } from './liquid-sandbox';
import { RenderedInvoiceDocument } from './render-document';

interface Job {
  readonly id: number;
  readonly timeMs: number;
  readonly message: Record<string, unknown>;
  readonly resolve: (document: RenderedInvoiceDocument) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker | null;
  /** The worker has loaded its code: the next job's time starts when it is posted. */
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/** The pool is shutting down: the render did not happen (a reactor's batch is rolled back and redone by the next process). */
export class RenderPoolClosedError extends Error {
  constructor() {
    super('the render pool is shutting down');
    this.name = 'RenderPoolClosedError';
  }
}

/** 503: the environment has as many renders waiting as it may; a reactor's batch is rolled back and redone. */
export class RenderQueueFullError extends HttpProblem {
  constructor(bound: number) {
    super(503, 'render-queue-full', `This environment already has ${bound} documents waiting to render; retry shortly.`, undefined, { 'retry-after': '1' });
    this.name = 'RenderQueueFullError';
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Renders documents on worker threads (TEMPLATE_RENDER_THREADS), so the event
 * loop that answers requests and runs reactors never waits for a render.
 * Each render is bounded where it runs: its thread's heap
 * (TEMPLATE_RENDER_MEMORY_MB, `resourceLimits`), and its time, template and
 * layout together (TEMPLATE_RENDER_TIMEOUT_MS plus a little per invoice line):
 * a thread past either is terminated and replaced, failing its render with
 * template-limit-exceeded. Renders wait in a fair queue, one line per
 * environment served in turn, each environment with at most
 * TEMPLATE_RENDER_QUEUE waiting (then 503 render-queue-full). Threads start
 * on first use and never keep the process alive.
 */
@Injectable()
export class RenderPool implements OnModuleDestroy {
  private readonly settings: TemplateRenderingConfig;
  private readonly slots: Slot[];
  private readonly queue: FairQueue<Job>;
  private nextId = 1;
  private closed = false;
  private started = 0;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.settings = config.templateRendering;
    this.slots = Array.from({ length: this.settings.threads }, () => ({ worker: null, ready: false, job: null, timer: null }));
    this.queue = new FairQueue(this.settings.queuePerEnvironment);
  }

  /** Threads started so far: a terminated thread's replacement counts. */
  get threadsStarted(): number {
    return this.started;
  }

  render(
    invoice: InvoiceView,
    environmentId: string,
    group: Pick<TemplateGroup, 'id' | 'locale' | 'templates'> | null,
    options: { fallBackToBuiltIn: boolean; documentDate: Date },
  ): Promise<RenderedInvoiceDocument> {
    return new Promise<RenderedInvoiceDocument>((resolve, reject) => {
      if (this.closed) return reject(new RenderPoolClosedError());
      const id = this.nextId++;
      const { timeMs, outputCharacters, pages } = documentBudget(invoice, this.settings.timeoutMs);
      const message = {
        id,
        invoice,
        environmentId,
        group: group ? { id: group.id, locale: group.locale, templates: group.templates } : null,
        fallBackToBuiltIn: options.fallBackToBuiltIn,
        documentDate: options.documentDate.toISOString(),
        budget: { outputCharacters, pages },
      };
      if (!this.queue.push(environmentId, { id, timeMs, message, resolve, reject })) return reject(new RenderQueueFullError(this.settings.queuePerEnvironment));
      this.dispatch();
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) job.reject(new RenderPoolClosedError());
    await Promise.all(this.slots.map((slot) => this.stop(slot, new RenderPoolClosedError())));
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.job || this.queue.size === 0) continue;
      if (!slot.worker) this.start(slot);
      if (!slot.ready) continue;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.timer = setTimeout(() => {
        void this.stop(slot, new TemplateRenderError('template-limit-exceeded', `The render was stopped: it did not finish within ${job.timeMs} ms.`));
        this.dispatch();
      }, job.timeMs);
      slot.worker!.postMessage(job.message);
    }
  }

  private start(slot: Slot): void {
    const worker = new Worker(join(__dirname, 'render-worker.js'), {
      resourceLimits: { maxOldGenerationSizeMb: this.settings.memoryMb, maxYoungGenerationSizeMb: Math.max(8, Math.floor(this.settings.memoryMb / 8)) },
    });
    this.started++;
    worker.unref();
    slot.worker = worker;
    slot.ready = false;
    worker.on('message', (answer: { ready?: true; id?: number; result?: RenderedInvoiceDocument; error?: { code: string | null; message: string } }) => {
      if (slot.worker !== worker) return;
      if (answer.ready) {
        slot.ready = true;
        this.dispatch();
        return;
      }
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
    worker.on('error', (error: Error & { code?: string }) => this.lost(slot, worker, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? this.outOfMemory() : error));
    worker.on('exit', (code) => this.lost(slot, worker, new Error(`the render thread exited (code ${code})`)));
  }

  private outOfMemory(): TemplateRenderError {
    return new TemplateRenderError('template-limit-exceeded', `The render was stopped: it needed more than ${this.settings.memoryMb} MB.`);
  }

  /**
   * A thread that failed or exited on its own: its render fails with `error`.
   * One that never got ready fails the next waiting render instead, so a
   * thread that cannot start fails renders rather than restarting forever.
   */
  private lost(slot: Slot, worker: Worker, error: Error): void {
    if (slot.worker !== worker) return;
    const waiting = slot.job || slot.ready ? undefined : this.queue.shift();
    void this.stop(slot, error);
    waiting?.reject(error);
    this.dispatch();
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
    slot.ready = false;
    job?.reject(error);
    if (worker) await worker.terminate();
  }
}
