import { Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { CommandContext, CommandPath, Reactor, RecordedEvent, UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import { invoiceEvolver, invoiceStream, MarkInvoiceUncollectibleCommand } from '@billing/invoicing';
import { CancelSubscriptionCommand } from '@billing/subscriptions';
import { DomainError } from '@billing/shared-kernel';
import { CollectionFailed, hasNothingToPay, INVOICE_COLLECTION_STREAM_TYPE } from '../domain';

/**
 * What follows a collection that gave up (CollectionFailed), as its
 * afterLastFailure says: `mark_uncollectible` runs invoicing's
 * MarkInvoiceUncollectibleCommand, `cancel_subscription` subscriptions'
 * CancelSubscriptionCommand (each context's published command, on the command
 * bus), `leave_open` nothing; nothing either when the invoice has been paid or
 * voided since. Exactly once: the command joins the reactor's
 * batch transaction, which also moves its checkpoint.
 */
@Injectable()
export class AfterLastFailureReactor implements Reactor {
  readonly name = 'payments.after-last-failure';
  readonly streamTypes = [INVOICE_COLLECTION_STREAM_TYPE];
  readonly eventTypes = ['CollectionFailed'];
  private readonly logger = new Logger('AfterLastFailure');

  constructor(
    private readonly bus: CommandBus,
    private readonly commands: CommandPath,
  ) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const unit = new UnitOfWork(tx);
    try {
      await withinUnitOfWork(unit, async () => {
        for (const event of events) if (event.type === 'CollectionFailed') await this.follow(event, (event as unknown as CollectionFailed).data);
      });
    } finally {
      unit.close();
    }
  }

  private async follow(event: RecordedEvent, { invoiceId, subscriptionId, afterLastFailure }: CollectionFailed['data']): Promise<void> {
    if (afterLastFailure === undefined || afterLastFailure === 'leave_open') return;
    // Paid (or voided) since the collection gave up: the customer owes nothing, so nothing follows.
    const invoice = (await this.commands.load(invoiceStream(event.environmentId, invoiceId), invoiceEvolver)).state;
    if (invoice.status !== 'none' && hasNothingToPay(invoice)) {
      this.logger.log({ msg: 'nothing left to pay on the invoice of a failed collection: nothing follows', afterLastFailure, invoiceId, subscriptionId });
      return;
    }
    const context: CommandContext = {
      meta: { now: event.occurredAt, newId: randomUUID },
      metadata: { actor: 'system:payments', requestId: null, correlationId: event.metadata.correlationId, causationId: event.eventId },
    };
    try {
      if (afterLastFailure === 'mark_uncollectible') await this.bus.execute(new MarkInvoiceUncollectibleCommand(event.environmentId, invoiceId, context));
      if (afterLastFailure === 'cancel_subscription') await this.bus.execute(new CancelSubscriptionCommand(event.environmentId, subscriptionId, context));
    } catch (error) {
      // A rule refuses it (the invoice was settled or voided, the subscription has ended meanwhile): nothing is left to do.
      if (!(error instanceof DomainError)) throw error;
      this.logger.warn({ msg: 'what follows a failed collection was refused', afterLastFailure, invoiceId, subscriptionId, error: error.message });
    }
  }
}
