import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { CommandPath, Reactor, RecordedEvent, UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import { INVOICE_STREAM, invoiceEvolver, InvoiceSettlementAddedData, invoiceStream } from '@billing/invoicing';
import { collectionEvolver, decideStopCollection } from '../domain';
import { collectionStream } from '../streams';

/**
 * An invoice that no longer is to be collected (invoicing's published events:
 * voided, marked uncollectible, or settled by whatever settled it: a payment,
 * a settlement, a credit note, the credit balance) stops its collection: no
 * further try is made. Decided on the invoice as its stream says now, so a
 * settlement made by the collection's own try is its success, not a stop.
 * Exactly once, in the reactor's batch transaction with its checkpoint; an
 * invoice without a collection, or one whose collection is over, records
 * nothing. The engine checks the invoice again before and after each try, so
 * a try that falls due before this reactor has run is not made either.
 */
@Injectable()
export class CollectionStopReactor implements Reactor {
  readonly name = 'payments.collection-stops';
  readonly streamTypes = [INVOICE_STREAM];
  readonly eventTypes = ['InvoiceVoided', 'InvoiceMarkedUncollectible', 'InvoiceSettlementAdded'];

  constructor(private readonly commands: CommandPath) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const unit = new UnitOfWork(tx);
    try {
      await withinUnitOfWork(unit, async () => {
        for (const event of events) if (mayStop(event)) await this.stop(event, (event.data as { invoiceId: string }).invoiceId);
      });
    } finally {
      unit.close();
    }
  }

  private async stop(event: RecordedEvent, invoiceId: string): Promise<void> {
    const context = {
      meta: { now: event.occurredAt, newId: randomUUID },
      metadata: { actor: 'system:payments', requestId: null, correlationId: event.metadata.correlationId, causationId: event.eventId },
    };
    const invoice = (await this.commands.load(invoiceStream(event.environmentId, invoiceId), invoiceEvolver)).state;
    if (invoice.status === 'none') return;
    await this.commands.handle(
      collectionStream(event.environmentId, invoiceId),
      collectionEvolver,
      (state) => decideStopCollection(invoice, state, context.meta),
      context,
      // The engine may record a try meanwhile: decided again on a fresh load.
      { conflicts: { retries: 2 } },
    );
  }
}

/** A void, a mark, or a settlement that leaves nothing to pay (most settlements are not of a collected invoice, or leave some due). */
function mayStop(event: RecordedEvent): boolean {
  if (event.type === 'InvoiceSettlementAdded') {
    const { settlementStatus } = event.data as InvoiceSettlementAddedData;
    return settlementStatus === 'settled' || settlementStatus === 'over_settled';
  }
  return event.type === 'InvoiceVoided' || event.type === 'InvoiceMarkedUncollectible';
}
