import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { CommandPath, Reactor, RecordedEvent, UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import { Evolver } from '@billing/shared-kernel';
import { collectionEvolver, decideStartCollection, paymentSettingsEvolver } from '../domain';
import { collectionStream, paymentSettingsStream } from '../streams';

/**
 * The subscriptions context's events payments collects from: its published
 * language, declared here as consumed (payments does not depend on the
 * subscriptions package). Names are public and never renamed.
 */
const SUBSCRIPTION_STREAM_TYPE = 'subscription';
interface SubscriptionBilledData {
  readonly subscriptionId: string;
  readonly invoiceId: string;
  /** Set when the invoice (with usage) stays a draft for the usage grace period: booked later, announced by SubscriptionInvoiceBooked. */
  readonly bookAt?: string | null;
}
interface PaymentMethod {
  readonly provider: string;
  readonly token: string;
}
/** Only what collecting needs of a subscription stream: its payment method. */
const paymentMethodOf: Evolver<PaymentMethod | null, { type: string; schemaVersion: number; data: unknown }> = {
  initialState: () => null,
  evolve: (state, event) => (event.type === 'SubscriptionCreated' ? ((event.data as { paymentMethod?: PaymentMethod | null }).paymentMethod ?? null) : state),
};

/**
 * Every invoice the billing engine books for a subscription with a payment
 * method (at billing, or at the end of a usage grace period) starts its collection, due at once, with the environment's retry
 * schedule. Exactly once: written in the reactor's batch transaction with its
 * checkpoint, and a collection starts once per invoice.
 */
@Injectable()
export class CollectionReactor implements Reactor {
  readonly name = 'payments.collections';
  readonly streamTypes = [SUBSCRIPTION_STREAM_TYPE];

  constructor(private readonly commands: CommandPath) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const unit = new UnitOfWork(tx);
    try {
      await withinUnitOfWork(unit, async () => {
        for (const event of events) {
          // An invoice is collected once it is booked: at once, or at the end of its usage grace period.
          const booked =
            (event.type === 'SubscriptionBilled' && (event.data as SubscriptionBilledData).bookAt == null) || event.type === 'SubscriptionInvoiceBooked';
          if (booked) await this.start(event);
        }
      });
    } finally {
      unit.close();
    }
  }

  private async start(event: RecordedEvent): Promise<void> {
    const { subscriptionId, invoiceId } = event.data as SubscriptionBilledData;
    const method = (await this.commands.load({ environmentId: event.environmentId, streamType: SUBSCRIPTION_STREAM_TYPE, streamId: subscriptionId }, paymentMethodOf)).state;
    if (method === null) return;
    const { retryDays } = (await this.commands.load(paymentSettingsStream(event.environmentId), paymentSettingsEvolver)).state;
    const context = {
      meta: { now: event.occurredAt, newId: randomUUID },
      metadata: { actor: 'system:payments', requestId: null, correlationId: event.metadata.correlationId, causationId: event.eventId },
    };
    await this.commands.handle(
      collectionStream(event.environmentId, invoiceId),
      collectionEvolver,
      (state) => decideStartCollection({ invoiceId, subscriptionId, provider: method.provider, token: method.token, retryDays }, state, context.meta),
      context,
    );
  }
}
