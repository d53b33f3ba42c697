import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import { CommandContext, CommandPath, CommandSession, queryRows, StreamVersionConflictError, toNewEvents } from '@billing/event-store';
import { ConflictError, FieldError, ValidationError } from '@billing/shared-kernel';
import { decideCreateSubscription, Subscription, subscriptionEvolver, SubscriptionHandleClaimed } from '../domain';
import { priceFactsOf, SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { subscriptionHandleStream, subscriptionStream } from '../streams';
import { UsageStore } from '../usage/usage-store';
import { CreateSubscriptionCommand } from './create-subscription.command';

/**
 * Checks the items against the catalog's and invoicing's facts (folded into
 * this context from their events), claims the handle and writes the
 * subscription, in one transaction: a handle is never held twice, and a
 * generated one never collides with a chosen one.
 */
@CommandHandler(CreateSubscriptionCommand)
export class CreateSubscriptionHandler implements ICommandHandler<CreateSubscriptionCommand, { subscription: Subscription; version: number }> {
  constructor(
    private readonly commands: CommandPath,
    private readonly readModel: SubscriptionsReadModel,
    private readonly usage: UsageStore,
  ) {}

  async execute({ environmentId, input, context }: CreateSubscriptionCommand): Promise<{ subscription: Subscription; version: number }> {
    const { meta, metadata } = context;
    const subscriptionId = meta.newId();
    const prices = await this.readModel.prices(
      environmentId,
      input.items.map((item) => item.priceId),
    );
    await this.assertTaxCodesKnown(environmentId, input.items.map((item) => item.taxCode));
    const metricCodes = [...prices.values()].flatMap(({ price }) => (price.metricCode ? [price.metricCode] : []));
    const metrics = await this.usage.metrics(environmentId, metricCodes);
    const items = input.items.map((item) => {
      const found = prices.get(item.priceId);
      const facts = found ? priceFactsOf(found) : null;
      return { priceId: item.priceId, price: facts && { ...facts, metricExists: facts.metricCode ? metrics.has(facts.metricCode) : false }, quantity: item.quantity, taxCode: item.taxCode };
    });
    return this.commands.transaction(async (session) => {
      const claim = (handle: string) => this.claimHandle(session, environmentId, handle, subscriptionId, context);
      const handle = input.handle ?? (await this.claimNextHandle(session.tx, environmentId, claim));
      const events = decideCreateSubscription(
        { subscriptionId, handle, customer: input.customer, currency: input.currency, term: input.term, autoRenewal: input.autoRenewal, timeZone: input.timeZone, items, paymentMethod: input.paymentMethod },
        subscriptionEvolver.initialState(),
        meta,
      );
      if (input.handle !== null && !(await claim(handle))) {
        throw new ConflictError('subscription-handle-taken', `another subscription of this environment has the handle '${handle}'`);
      }
      await session.append([{ stream: subscriptionStream(environmentId, subscriptionId), expectedVersion: 'no_stream', events: toNewEvents(events, meta) }], metadata);
      return { subscription: events.reduce(subscriptionEvolver.evolve, subscriptionEvolver.initialState()) as Subscription, version: events.length };
    });
  }

  private async assertTaxCodesKnown(environmentId: string, codes: readonly (string | null)[]): Promise<void> {
    const named = codes.filter((code): code is string => code !== null);
    const known = await this.readModel.knownTaxCodes(environmentId, named);
    const errors: FieldError[] = codes.flatMap((code, index) =>
      code !== null && !known.has(code) ? [{ pointer: `/items/${index}/taxCode`, detail: `no tax code '${code}' exists in this environment` }] : [],
    );
    if (errors.length > 0) throw new ValidationError('The subscription request is invalid.', errors);
  }

  /** The handle's claim, the one event of its stream; false when another subscription holds it. */
  private async claimHandle(session: CommandSession, environmentId: string, handle: string, subscriptionId: string, context: CommandContext): Promise<boolean> {
    const claimed: SubscriptionHandleClaimed = { type: 'SubscriptionHandleClaimed', schemaVersion: 1, data: { handle, subscriptionId } };
    try {
      await session.append([{ stream: subscriptionHandleStream(environmentId, handle), expectedVersion: 'no_stream', events: toNewEvents([claimed], context.meta) }], context.metadata);
      return true;
    } catch (error) {
      if (error instanceof StreamVersionConflictError) return false;
      throw error;
    }
  }

  /** Claims the next SUB-000001 of the environment that no chosen handle holds (the counter row stays locked until commit). */
  private async claimNextHandle(tx: EntityManager, environmentId: string, claim: (handle: string) => Promise<boolean>): Promise<string> {
    for (;;) {
      const [row] = await queryRows<{ last: string }>(
        tx,
        `insert into subscription_handle_sequences (environment_id, last) values ($1, 1)
         on conflict (environment_id) do update set last = subscription_handle_sequences.last + 1 returning last::text`,
        [environmentId],
      );
      const handle = `SUB-${row.last.padStart(6, '0')}`;
      if (await claim(handle)) return handle;
    }
  }
}
