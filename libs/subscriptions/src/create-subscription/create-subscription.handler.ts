import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { redeemDiscounts } from '@billing/coupons';
import { CustomerRecordQuery, invoiceCustomerOf } from '@billing/invoicing';
import { CommandPath, CommandSession, Written } from '@billing/event-store';
import { PaymentTokenVault } from '@billing/platform';
import { FieldError, foldEvents, ValidationError } from '@billing/shared-kernel';
import {
  decideApplyDiscounts,
  decideClaimFirstSubscription,
  decideClaimHandle,
  firstSubscriptionClaimEvolver,
  decideCreateSubscription,
  handleClaimEvolver,
  handleIsFree,
  Subscription,
  SubscriptionCustomer,
  SubscriptionEvent,
  subscriptionEvolver,
} from '../domain';
import { priceFactsOf, SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { customerFirstSubscriptionStream, subscriptionHandleStream, subscriptionStream } from '../streams';
import { UsageStore } from '../usage/usage-store';
import { CreateSubscriptionCommand, CreateSubscriptionInput } from './create-subscription.command';

/**
 * Checks the items against the catalog's and invoicing's facts (folded into
 * this context from their events), claims the handle and writes the
 * subscription, in one transaction: a handle is never held twice, and a
 * generated one never collides with a chosen one.
 */
@CommandHandler(CreateSubscriptionCommand)
export class CreateSubscriptionHandler implements ICommandHandler<CreateSubscriptionCommand, Written<Subscription>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly readModel: SubscriptionsReadModel,
    private readonly usage: UsageStore,
    private readonly queries: QueryBus,
    private readonly tokens: PaymentTokenVault,
  ) {}

  async execute({ environmentId, input: request, context }: CreateSubscriptionCommand): Promise<Written<Subscription>> {
    const { meta } = context;
    const input = await this.withCustomer(environmentId, request);
    const subscriptionId = meta.newId();
    const prices = await this.readModel.pricesNamed(
      environmentId,
      input.items.map((item) => item.priceId),
    );
    await this.assertTaxCodesKnown(
      environmentId,
      input.items.map((item) => item.taxCode),
    );
    const metricCodes = [...prices.values()].flatMap(({ price }) => (price.metricCode ? [price.metricCode] : []));
    const metrics = await this.readModel.caughtUpOnMiss(
      () => this.usage.metrics(environmentId, metricCodes),
      (found) => metricCodes.every((code) => found.has(code)),
    );
    // Subscriptions from before first-subscription claims were recorded: the claim's decider counts them.
    const earlierSubscriptions = input.customerId !== null && (await this.readModel.hasSubscriptions(environmentId, input.customerId));
    const items = input.items.map((item) => {
      const found = prices.get(item.priceId);
      const facts = found ? priceFactsOf(found) : null;
      return {
        priceId: item.priceId,
        price: facts && { ...facts, metricExists: facts.metricCode ? metrics.has(facts.metricCode) : false },
        quantity: item.quantity,
        taxCode: item.taxCode,
      };
    });
    // A claim committed by a concurrent request between this one's load and append is a conflict: decided again, it is seen.
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const handle = input.handle ?? (await this.nextFreeHandle(session, environmentId));
      const events: SubscriptionEvent[] = decideCreateSubscription(
        {
          subscriptionId,
          handle,
          customer: input.customer,
          customerId: input.customerId,
          currency: input.currency,
          term: input.term,
          autoRenewal: input.autoRenewal,
          timeZone: input.timeZone,
          items,
          // Sealed here, where it enters: the event and every read model built from it keep it encrypted.
          paymentMethod: input.paymentMethod && { ...input.paymentMethod, token: this.tokens.seal(environmentId, input.paymentMethod.token) },
          trialEnd: input.trialEnd,
          trialDays: input.trialDays,
        },
        subscriptionEvolver.initialState(),
        meta,
      );
      const handleStream = subscriptionHandleStream(environmentId, handle);
      session.append(handleStream, decideClaimHandle({ handle, subscriptionId }, (await session.load(handleStream, handleClaimEvolver)).state));
      const firstTimeCustomer =
        input.customerId !== null && (await this.claimFirstSubscription(session, environmentId, input.customerId, subscriptionId, earlierSubscriptions));
      // Each coupon's redemption is appended at the version loaded, with the subscription: its limit holds under concurrency.
      const redeemed = await redeemDiscounts(
        session,
        input.discounts,
        {
          environmentId,
          redeemedBy: { type: 'subscription', id: subscriptionId },
          currency: input.currency.toUpperCase(),
          firstTimeCustomer,
          pointer: '/discounts',
        },
        meta,
      );
      events.push(...decideApplyDiscounts({ subscriptionId, discounts: redeemed }, foldEvents(subscriptionEvolver, events), meta));
      const version = session.append(subscriptionStream(environmentId, subscriptionId), events);
      return { id: subscriptionId, version, state: foldEvents(subscriptionEvolver, events) as Subscription };
    });
  }

  /**
   * Whether this is the customer record's first subscription, decided in the
   * command's transaction: the first one appends the customer's claim
   * expecting no stream, so a concurrent first subscription conflicts and,
   * decided again, finds the claim taken (a first-time-only promotion code is
   * then refused to it).
   */
  private async claimFirstSubscription(
    session: CommandSession,
    environmentId: string,
    customerId: string,
    subscriptionId: string,
    earlierSubscriptions: boolean,
  ): Promise<boolean> {
    const stream = customerFirstSubscriptionStream(environmentId, customerId);
    const { state } = await session.load(stream, firstSubscriptionClaimEvolver);
    const { firstTime, events } = decideClaimFirstSubscription({ customerId, subscriptionId, earlierSubscriptions }, state);
    if (events.length > 0) session.append(stream, events);
    return firstTime;
  }

  /**
   * The inline customer, or the customer record `customerId` names (asked of
   * invoicing, which owns customers): its snapshot becomes the subscription's
   * customer, and its time zone and default payment method apply unless the
   * request gives its own. An unknown (or another environment's) or archived
   * customer is a 422 at /customerId.
   */
  private async withCustomer(environmentId: string, input: CreateSubscriptionInput): Promise<CreateSubscriptionInput & { customer: SubscriptionCustomer }> {
    if (input.customer !== null && input.customerId !== null) {
      throw new ValidationError('Give the customer inline (customer) or as a customer record (customerId), not both.', [
        { pointer: '/customer', detail: 'not allowed together with customerId' },
        { pointer: '/customerId', detail: 'not allowed together with customer' },
      ]);
    }
    if (input.customerId === null) {
      if (input.customer === null) throw ValidationError.at('/customer', 'is required: the customer inline, or customerId naming a customer record');
      return { ...input, customer: input.customer };
    }
    const record = await this.queries.execute(new CustomerRecordQuery(environmentId, input.customerId));
    if (record === null) throw ValidationError.at('/customerId', 'names no customer of this environment');
    if (record.status === 'archived') throw ValidationError.at('/customerId', 'names a deleted (archived) customer');
    return {
      ...input,
      customer: { ...invoiceCustomerOf(record) },
      timeZone: input.timeZone ?? record.timeZone,
      paymentMethod: input.paymentMethod ?? record.defaultPaymentMethod,
    };
  }

  private async assertTaxCodesKnown(environmentId: string, codes: readonly (string | null)[]): Promise<void> {
    const named = codes.filter((code): code is string => code !== null);
    const known = await this.readModel.knownTaxCodes(environmentId, named);
    const errors: FieldError[] = codes.flatMap((code, index) =>
      code !== null && !known.has(code) ? [{ pointer: `/items/${index}/taxCode`, detail: `no tax code '${code}' exists in this environment` }] : [],
    );
    if (errors.length > 0) throw new ValidationError('The subscription request is invalid.', errors);
  }

  /** The next SUB-000001 of the environment that no chosen handle holds (the counter row stays locked until commit). */
  private async nextFreeHandle(session: CommandSession, environmentId: string): Promise<string> {
    for (;;) {
      const [row] = await session.query<{ last: string }>(
        `insert into subscription_handle_sequences (environment_id, last) values ($1, 1)
         on conflict (environment_id) do update set last = subscription_handle_sequences.last + 1 returning last::text`,
        [environmentId],
      );
      const handle = `SUB-${row.last.padStart(6, '0')}`;
      if (handleIsFree((await session.load(subscriptionHandleStream(environmentId, handle), handleClaimEvolver)).state)) return handle;
    }
  }
}
