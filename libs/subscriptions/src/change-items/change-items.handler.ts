import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { redeemDiscounts } from '@billing/coupons';
import { CommandPath, Written } from '@billing/event-store';
import { foldEvents } from '@billing/shared-kernel';
import {
  decideApplyDiscounts,
  decideChangeItems,
  existingSubscription,
  RequestedItemChange,
  Subscription,
  SubscriptionEvent,
  subscriptionEvolver,
  SubscriptionState,
} from '../domain';
import { BillingInputs } from '../billing/invoice-inputs';
import { priceFactsOf, SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { subscriptionStream } from '../streams';
import { ChangeBilling } from './change-billing';
import { ChangeItemsCommand, RequestedChangeItem } from './change-items.command';

/**
 * A change of items in one transaction: decided on the subscription as loaded (with the catalog's prices of
 * the items it touches), the coupons given redeemed with it, and with always_invoice (effective now) the
 * invoice of its proration lines created and booked — all of it written, or none.
 */
@CommandHandler(ChangeItemsCommand)
export class ChangeItemsHandler implements ICommandHandler<ChangeItemsCommand, Written<Subscription>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly readModel: SubscriptionsReadModel,
    private readonly inputs: BillingInputs,
    private readonly billing: ChangeBilling,
  ) {}

  async execute({ environmentId, subscriptionId, input, context, expectedVersion }: ChangeItemsCommand): Promise<Written<Subscription>> {
    const { meta } = context;
    const items = await requestedItems(this.readModel, environmentId, input.items);
    const stream = subscriptionStream(environmentId, subscriptionId);
    return this.commands.atomically(() =>
      this.commands.run(context, 'reject', async (session) => {
        const { state } = await session.load(stream, subscriptionEvolver, expectedVersion);
        const subscription = existingSubscription(state, subscriptionId);
        const sources = this.inputs.sources(environmentId, subscription, session.tx);
        const prices = await this.billing.prices(
          subscription,
          items.map((item) => item.priceId),
          sources,
        );
        const changeId = meta.newId();
        const events: SubscriptionEvent[] = decideChangeItems(
          { subscriptionId, changeId, items, effective: input.effective, prorationBehavior: input.prorationBehavior },
          state,
          meta,
          prices,
        );
        let changed = foldEvents(subscriptionEvolver, events, state) as Subscription;
        const change = changed.latestChange?.id === changeId ? changed.latestChange : changed.pendingChanges!.find((pending) => pending.id === changeId)!;
        const redeemed = await redeemDiscounts(
          session,
          input.discounts,
          {
            environmentId,
            redeemedBy: { type: 'subscription', id: subscriptionId },
            currency: subscription.currency.toUpperCase(),
            firstTimeCustomer: false,
            pointer: '/discounts',
          },
          meta,
        );
        const applied = decideApplyDiscounts({ subscriptionId, discounts: redeemed, start: change.date }, changed, meta);
        events.push(...applied);
        changed = foldEvents(subscriptionEvolver, applied, changed as SubscriptionState) as Subscription;
        if (changed.latestChange?.id === changeId && input.prorationBehavior === 'always_invoice') {
          const billed = await this.billing.invoiceProrations(environmentId, changed, context, session.tx);
          events.push(...billed);
          changed = foldEvents(subscriptionEvolver, billed, changed as SubscriptionState) as Subscription;
        }
        const version = session.append(stream, events);
        return { id: subscriptionId, version, state: changed };
      }),
    );
  }
}

/** The requested items with the catalog's facts of the prices they name (null: no such price in the environment). */
export async function requestedItems(
  readModel: SubscriptionsReadModel,
  environmentId: string,
  items: readonly RequestedChangeItem[],
): Promise<RequestedItemChange[]> {
  const found = await readModel.pricesNamed(
    environmentId,
    items.flatMap((item) => (item.priceId ? [item.priceId] : [])),
  );
  return items.map((item) => {
    const price = item.priceId ? found.get(item.priceId) : undefined;
    return { ...item, ...(item.priceId ? { price: price ? priceFactsOf(price) : null } : {}) };
  });
}
