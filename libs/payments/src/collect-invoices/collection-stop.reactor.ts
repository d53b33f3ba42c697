import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { CommandPath, Reactor, RecordedEvent, UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import { INVOICE_STREAM, InvoiceMarkedUncollectibleData, InvoiceVoidedData } from '@billing/invoicing';
import { CollectionStopReason, collectionEvolver, decideStopCollection } from '../domain';
import { collectionStream } from '../streams';

/**
 * An invoice voided or marked uncollectible (invoicing's published events)
 * stops its collection: no further try is made. Exactly once, in the
 * reactor's batch transaction with its checkpoint; an invoice without a
 * collection, or one whose collection is over, records nothing. The engine
 * checks the invoice again before each try, so a try that falls due before
 * this reactor has run is not made either.
 */
@Injectable()
export class CollectionStopReactor implements Reactor {
  readonly name = 'payments.collection-stops';
  readonly streamTypes = [INVOICE_STREAM];
  readonly eventTypes = ['InvoiceVoided', 'InvoiceMarkedUncollectible'];

  constructor(private readonly commands: CommandPath) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const unit = new UnitOfWork(tx);
    try {
      await withinUnitOfWork(unit, async () => {
        for (const event of events) {
          const stop = stopOf(event);
          if (stop) await this.stop(event, stop);
        }
      });
    } finally {
      unit.close();
    }
  }

  private async stop(event: RecordedEvent, { invoiceId, reason }: { invoiceId: string; reason: CollectionStopReason }): Promise<void> {
    const context = {
      meta: { now: event.occurredAt, newId: randomUUID },
      metadata: { actor: 'system:payments', requestId: null, correlationId: event.metadata.correlationId, causationId: event.eventId },
    };
    await this.commands.handle(
      collectionStream(event.environmentId, invoiceId),
      collectionEvolver,
      (state) => decideStopCollection({ reason }, state, context.meta),
      context,
      // The engine may record a try meanwhile: decided again on a fresh load.
      { conflicts: { retries: 2 } },
    );
  }
}

function stopOf(event: RecordedEvent): { invoiceId: string; reason: CollectionStopReason } | null {
  if (event.type === 'InvoiceVoided') return { invoiceId: (event.data as InvoiceVoidedData).invoiceId, reason: 'invoice-void' };
  if (event.type === 'InvoiceMarkedUncollectible')
    return { invoiceId: (event.data as InvoiceMarkedUncollectibleData).invoiceId, reason: 'invoice-uncollectible' };
  return null;
}
