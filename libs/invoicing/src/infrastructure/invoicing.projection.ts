import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { EventStore, ProjectionRunner, RecordedEvent } from '@billing/event-store';
import { ResourceViews } from '@billing/platform';
import { InvoiceEvent, InvoiceState, TaxCodeEvent, TaxCodeState, invoiceEvolver, taxCodeEvolver, toInvoiceView } from '../domain';
import { INVOICE_STREAM, TAX_CODE_STREAM, toTaxCodeView } from './streams';

export const INVOICING_PROJECTION = 'invoicing.read-model';

/**
 * Keeps `invoices` and `tax_codes` equal to a fold of their streams. Each
 * event re-folds its stream up to (and including) that event inside the
 * projection's transaction, so the stored view is always exactly what the
 * aggregate renders at that version: derived from events only, never from
 * another table.
 */
@Injectable()
export class InvoicingProjection implements OnModuleInit {
  constructor(
    private readonly runner: ProjectionRunner,
    private readonly eventStore: EventStore,
    private readonly resourceViews: ResourceViews,
  ) {}

  onModuleInit(): void {
    this.resourceViews.register(INVOICE_STREAM, invoiceEvolver, (state: InvoiceState) => (state.exists ? toInvoiceView(state) : null));
    this.resourceViews.register(TAX_CODE_STREAM, taxCodeEvolver, (state: TaxCodeState) => (state.exists ? toTaxCodeView(state) : null));
    this.runner.register({
      name: INVOICING_PROJECTION,
      consistency: 'read-your-writes',
      apply: (event, tx) => this.apply(event, tx),
      reset: async (tx) => {
        await tx.query(`delete from invoices`);
        await tx.query(`delete from tax_codes`);
      },
    });
  }

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.streamType === INVOICE_STREAM) {
      const state = await this.foldUpTo(event, invoiceEvolver, tx);
      if (!state.exists) return;
      const view = toInvoiceView(state);
      await tx.query(
        `insert into invoices (environment_id, id, status, type, settlement_status, customer_id, handle, created_at, version, view)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         on conflict (environment_id, id) do update set
           status = excluded.status, type = excluded.type, settlement_status = excluded.settlement_status,
           customer_id = excluded.customer_id, handle = excluded.handle, created_at = excluded.created_at,
           version = excluded.version, view = excluded.view
         where invoices.version < excluded.version`,
        [
          event.environmentId,
          view.id,
          view.status,
          view.type,
          view.settlementStatus,
          view.customer.id,
          view.handle,
          view.createdAt,
          event.streamVersion,
          JSON.stringify(view),
        ],
      );
    } else if (event.streamType === TAX_CODE_STREAM) {
      const state = await this.foldUpTo(event, taxCodeEvolver, tx);
      if (!state.exists) return;
      const view = toTaxCodeView(state);
      await tx.query(
        `insert into tax_codes (environment_id, code, stream_id, rate, taxable, version, view)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (environment_id, code) do update set
           rate = excluded.rate, taxable = excluded.taxable, version = excluded.version, view = excluded.view
         where tax_codes.version < excluded.version`,
        [event.environmentId, view.code, event.streamId, view.rate, view.taxable, event.streamVersion, JSON.stringify(view)],
      );
    }
  }

  private async foldUpTo<State, Event extends InvoiceEvent | TaxCodeEvent>(
    event: RecordedEvent,
    evolver: Evolver<State, Event>,
    tx: EntityManager,
  ): Promise<State> {
    const events = await this.eventStore.readStream(event, tx);
    return events
      .filter((e) => e.streamVersion <= event.streamVersion)
      .reduce((state, e) => evolver.evolve(state, { type: e.type, schemaVersion: e.schemaVersion, data: e.data } as DomainEvent as Event), evolver.initialState());
  }
}
