import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError, DomainEvent, Evolver } from '@billing/shared-kernel';
import { EventStore, ProjectionRunner, queryRows, RecordedEvent, StreamRef } from '@billing/event-store';
import { ResourceViews } from '@billing/platform';
import {
  Invoice,
  InvoiceEvent,
  InvoiceState,
  InvoiceView,
  TaxCodeEvent,
  TaxCodeState,
  invoiceEvolver,
  taxCodeEvolver,
  taxCodesOf,
  toInvoiceView,
  withCurrentTax,
} from '../domain';
import { InvoicingReadModel } from './invoicing.read-model';
import { INVOICE_STREAM, TAX_CODE_STREAM, invoiceStream, toTaxCodeView } from './streams';

export const INVOICING_PROJECTION = 'invoicing.read-model';

/**
 * Keeps `invoices` and `tax_codes` equal to a fold of their streams. Each
 * event re-folds its stream up to (and including) that event inside the
 * projection's transaction, so the stored view is always exactly what the
 * aggregate renders at that version, derived from events only.
 *
 * Draft invoices are shown at the current rates of their tax codes
 * (`withCurrentTax`), read from this projection's own `tax_codes` table, which
 * is exactly as of the events applied so far. A TaxCodeUpdated therefore also
 * re-renders every draft invoice of the environment naming that code: a replay
 * from zero gives the same rows.
 */
@Injectable()
export class InvoicingProjection implements OnModuleInit {
  constructor(
    private readonly runner: ProjectionRunner,
    private readonly eventStore: EventStore,
    private readonly resourceViews: ResourceViews,
    private readonly readModel: InvoicingReadModel,
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
      const state = await this.foldUpTo(event, event.streamVersion, invoiceEvolver, tx);
      if (!state.exists) return;
      const view = await this.render(event.environmentId, state, tx);
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
      const state = await this.foldUpTo(event, event.streamVersion, taxCodeEvolver, tx);
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
      if (event.type === 'TaxCodeUpdated') await this.rerenderDraftsNaming(event.environmentId, view.code, tx);
    }
  }

  /** A draft invoice at its codes' current rates; anything else as folded. */
  private async render(environmentId: string, invoice: Invoice, tx: EntityManager): Promise<InvoiceView> {
    if (invoice.status !== 'draft' || invoice.type !== 'invoice') return toInvoiceView(invoice);
    const register = await this.readModel.taxRegister(environmentId, taxCodesOf(invoice), tx);
    try {
      return toInvoiceView(withCurrentTax(invoice, register));
    } catch (error) {
      // A higher rate pushing a total past ±(2^53 − 1): show the draft as written; booking it reports the 422.
      if (error instanceof DomainError) return toInvoiceView(invoice);
      throw error;
    }
  }

  /** The draft invoices of the environment with a line naming `code`, re-rendered at its new rate (their version is unchanged). */
  private async rerenderDraftsNaming(environmentId: string, code: string, tx: EntityManager): Promise<void> {
    const drafts = await queryRows<{ id: string; version: number }>(
      tx,
      `select id, version from invoices
        where environment_id = $1 and status = 'draft' and type = 'invoice'
          and view->'items' @> jsonb_build_array(jsonb_build_object('tax', jsonb_build_object('taxCode', $2::text)))`,
      [environmentId, code],
    );
    for (const draft of drafts) {
      const state = await this.foldUpTo(invoiceStream(environmentId, draft.id), draft.version, invoiceEvolver, tx);
      if (!state.exists) continue;
      const view = await this.render(environmentId, state, tx);
      await tx.query(`update invoices set settlement_status = $3, view = $4 where environment_id = $1 and id = $2`, [
        environmentId,
        draft.id,
        view.settlementStatus,
        JSON.stringify(view),
      ]);
    }
  }

  private async foldUpTo<State, Event extends InvoiceEvent | TaxCodeEvent>(
    stream: StreamRef,
    version: number,
    evolver: Evolver<State, Event>,
    tx: EntityManager,
  ): Promise<State> {
    const events = await this.eventStore.readStream(stream, tx);
    return events
      .filter((e) => e.streamVersion <= version)
      .reduce((state, e) => evolver.evolve(state, { type: e.type, schemaVersion: e.schemaVersion, data: e.data } as DomainEvent as Event), evolver.initialState());
  }
}
