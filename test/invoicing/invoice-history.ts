import { randomUUID } from 'node:crypto';
import { EventMetadata, EventStore, StreamRef, toNewEvents } from '@billing/event-store';
import {
  INVOICE_STREAM,
  InvoiceEvent,
  InvoiceState,
  RequestedLine,
  ResolvedTax,
  TaxCodeEvent,
  TaxCodeState,
  creditNoteApplication,
  decideAddSettlement,
  decideApplyCreditNote,
  decideBookInvoice,
  decideCreateInvoice,
  decideCreateTaxCode,
  decideDuplicateInvoice,
  decideUpdateInvoice,
  decideUpdateTaxCode,
  invoiceEvolver,
  invoiceStream,
  resolveTax,
  taxCodeEvolver,
  taxCodeStream,
  taxCodesOf,
} from '@billing/invoicing';
import { CommandMetadata, DomainEvent, foldEvents } from '@billing/shared-kernel';

/**
 * Invoices and tax codes written through the real deciders to the real event store, for the invoicing
 * projection's spec (libs/invoicing/src/read-model/invoicing.projection.int.spec.ts): the log is kept as each
 * stream's domain events, so an expected row is a fold of them.
 */

const metadata: EventMetadata = { actor: 'test', requestId: null, correlationId: 'projection-spec', causationId: null };
const customer = { id: randomUUID(), handle: 'c-1', name: 'Acme' };
let clock = Date.parse('2026-01-15T10:00:00.000Z');
function meta(): CommandMetadata {
  clock += 1000;
  return { now: new Date(clock), newId: randomUUID };
}

/** The log as the test wrote it: each stream's domain events, so expected rows are folds of them. */
export class History {
  private readonly streams = new Map<string, { stream: StreamRef; events: DomainEvent[] }>();

  constructor(private readonly store: EventStore) {}

  async append(...appends: { stream: StreamRef; events: readonly DomainEvent[] }[]): Promise<void> {
    const written = appends.filter((a) => a.events.length > 0);
    if (written.length === 0) return;
    const m = meta();
    await this.store.append(
      written.map(({ stream, events }) => {
        const known = this.streams.get(key(stream));
        return { stream, expectedVersion: known ? known.events.length : 'no_stream', events: toNewEvents(events, m) };
      }),
      metadata,
    );
    for (const { stream, events } of written) {
      const known = this.streams.get(key(stream)) ?? { stream, events: [] };
      known.events.push(...events);
      this.streams.set(key(stream), known);
    }
  }

  invoice(environmentId: string, id: string): InvoiceState {
    return this.invoiceAt(environmentId, id, Infinity);
  }

  /** The invoice as of its stream's first `version` events. */
  invoiceAt(environmentId: string, id: string, version: number): InvoiceState {
    return foldEvents(invoiceEvolver, (this.streams.get(key(invoiceStream(environmentId, id)))?.events ?? []).slice(0, version) as InvoiceEvent[]);
  }

  taxCode(environmentId: string, code: string): TaxCodeState {
    return foldEvents(taxCodeEvolver, (this.streams.get(key(taxCodeStream(environmentId, code)))?.events ?? []) as TaxCodeEvent[]);
  }

  register(environmentId: string, codes: readonly string[]): Map<string, ResolvedTax> {
    const register = new Map<string, ResolvedTax>();
    for (const code of codes) {
      const state = this.taxCode(environmentId, code);
      if (state.status === 'active') register.set(code, resolveTax(state));
    }
    return register;
  }

  /** Every invoice stream of the log. */
  invoiceStreams(): StreamRef[] {
    return [...this.streams.values()].map((s) => s.stream).filter((s) => s.streamType === INVOICE_STREAM);
  }

  version(stream: StreamRef): number {
    return this.streams.get(key(stream))?.events.length ?? 0;
  }

  // ---- commands, through the real deciders

  async createTaxCode(environmentId: string, code: string, rate: number, taxable = true) {
    await this.append({
      stream: taxCodeStream(environmentId, code),
      events: decideCreateTaxCode({ code, rate, taxable }, this.taxCode(environmentId, code), meta()),
    });
  }

  async updateTaxCode(environmentId: string, code: string, change: { rate?: number; taxable?: boolean; description?: string | null }) {
    await this.append({
      stream: taxCodeStream(environmentId, code),
      events: decideUpdateTaxCode({ code, ...change }, this.taxCode(environmentId, code), meta()),
    });
  }

  async createInvoice(environmentId: string, items: RequestedLine[]): Promise<string> {
    const invoiceId = randomUUID();
    const taxes = this.register(
      environmentId,
      items.flatMap((item) => (item.taxCode ? [item.taxCode] : [])),
    );
    await this.append({
      stream: invoiceStream(environmentId, invoiceId),
      events: decideCreateInvoice({ invoiceId, customer, currency: 'EUR', date: '2026-01-15', items, taxes }, this.invoice(environmentId, invoiceId), meta()),
    });
    return invoiceId;
  }

  async updateInvoice(environmentId: string, invoiceId: string, items: RequestedLine[]) {
    const taxes = this.register(
      environmentId,
      items.flatMap((item) => (item.taxCode ? [item.taxCode] : [])),
    );
    await this.append({
      stream: invoiceStream(environmentId, invoiceId),
      events: decideUpdateInvoice({ invoiceId, date: '2026-01-15', currency: null, items, taxes }, this.invoice(environmentId, invoiceId), meta()),
    });
  }

  async book(environmentId: string, invoiceId: string, handle: string) {
    const state = this.invoice(environmentId, invoiceId);
    const taxes = state.status === 'none' ? new Map() : this.register(environmentId, taxCodesOf(state));
    const booking = decideBookInvoice({ invoiceId, handle, taxes }, state, meta());
    const booked = booking.reduce(invoiceEvolver.evolve, state);
    const application = creditNoteApplication(booked);
    if (!application) return this.append({ stream: invoiceStream(environmentId, invoiceId), events: booking });
    const applied = decideApplyCreditNote(application, this.invoice(environmentId, application.invoiceId), booked, meta());
    await this.append(
      { stream: invoiceStream(environmentId, invoiceId), events: [...booking, ...applied.creditNoteEvents] },
      { stream: invoiceStream(environmentId, application.invoiceId), events: applied.invoiceEvents },
    );
  }

  async settle(environmentId: string, invoiceId: string, amount: number) {
    await this.append({
      stream: invoiceStream(environmentId, invoiceId),
      events: decideAddSettlement({ invoiceId, date: '2026-01-20', amount }, this.invoice(environmentId, invoiceId), meta()),
    });
  }

  async duplicate(environmentId: string, invoiceId: string, reverse: boolean): Promise<string> {
    const newInvoiceId = randomUUID();
    const state = this.invoice(environmentId, invoiceId);
    const taxes = state.status === 'none' ? new Map() : this.register(environmentId, taxCodesOf(state));
    const { sourceEvents, newStreamEvents } = decideDuplicateInvoice({ invoiceId, newInvoiceId, reverse, taxes }, state, meta());
    await this.append(
      { stream: invoiceStream(environmentId, invoiceId), events: sourceEvents },
      { stream: invoiceStream(environmentId, newInvoiceId), events: newStreamEvents },
    );
    return newInvoiceId;
  }
}

const key = (stream: StreamRef) => `${stream.environmentId}/${stream.streamType}/${stream.streamId}`;
