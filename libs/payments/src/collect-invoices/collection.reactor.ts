import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { CommandPath, Reactor, RecordedEvent, UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import {
  SUBSCRIPTION_STREAM,
  SubscriptionBilledData,
  SubscriptionInvoiceBookedData,
  subscriptionEvolver,
  SubscriptionState,
  subscriptionStream,
} from '@billing/subscriptions';
import { invoiceEvolver, invoiceStream } from '@billing/invoicing';
import { collectionEvolver, decideStartCollection, paymentSettingsEvolver } from '../domain';
import { collectionStream, paymentSettingsStream } from '../streams';

/**
 * Every invoice the billing engine books for a subscription with a payment
 * method (at billing, or at the end of a usage grace period) starts its collection, due at once, with the environment's retry
 * schedule and afterLastFailure, unless nothing is due on it (credit from the customer's balance settled it). Exactly once: written in the reactor's batch transaction with its
 * checkpoint, and a collection starts once per invoice.
 */
export const COLLECTION_REACTOR = 'payments.collections';

@Injectable()
export class CollectionReactor implements Reactor {
  readonly name = COLLECTION_REACTOR;
  readonly streamTypes = [SUBSCRIPTION_STREAM];
  readonly eventTypes = ['SubscriptionBilled', 'SubscriptionInvoiceBooked'];

  constructor(private readonly commands: CommandPath) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const unit = new UnitOfWork(tx);
    try {
      await withinUnitOfWork(unit, async () => {
        // An invoice is collected once it is booked: at once, or at the end of its usage grace period.
        const booked = events.filter(
          (event) =>
            (event.type === 'SubscriptionBilled' && (event.data as SubscriptionBilledData).bookAt == null) || event.type === 'SubscriptionInvoiceBooked',
        );
        // Loaded in one statement: a month-end batch books hundreds of invoices, most of them of subscriptions without
        // a payment method, which need nothing more.
        const subscriptions = await this.commands.loadMany(
          booked.map((event) => subscriptionStream(event.environmentId, (event.data as SubscriptionBilledData | SubscriptionInvoiceBookedData).subscriptionId)),
          subscriptionEvolver,
        );
        for (const [index, event] of booked.entries()) await this.start(event, subscriptions[index].state);
      });
    } finally {
      unit.close();
    }
  }

  private async start(event: RecordedEvent, subscription: SubscriptionState): Promise<void> {
    const { subscriptionId, invoiceId } = event.data as SubscriptionBilledData | SubscriptionInvoiceBookedData;
    const method = subscription.status === 'none' ? null : subscription.paymentMethod;
    if (method === null) return;
    // An invoice its customer's credit balance settled at booking has nothing to collect: no collection starts (a try would be refused).
    const invoice = (await this.commands.load(invoiceStream(event.environmentId, invoiceId), invoiceEvolver)).state;
    if (invoice.status !== 'none' && invoice.totalInclVat - invoice.settledAmount <= 0) return;
    const { retryDays, afterLastFailure } = (await this.commands.load(paymentSettingsStream(event.environmentId), paymentSettingsEvolver)).state;
    const context = {
      meta: { now: event.occurredAt, newId: randomUUID },
      metadata: { actor: 'system:payments', requestId: null, correlationId: event.metadata.correlationId, causationId: event.eventId },
    };
    await this.commands.handle(
      collectionStream(event.environmentId, invoiceId),
      collectionEvolver,
      (state) =>
        decideStartCollection({ invoiceId, subscriptionId, provider: method.provider, token: method.token, retryDays, afterLastFailure }, state, context.meta),
      context,
    );
  }
}
