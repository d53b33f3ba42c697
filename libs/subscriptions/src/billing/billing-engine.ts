import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { amountForScaledQuantity } from '@billing/catalog';
import { CommandContext, CommandPath, outsideUnitOfWork, ProjectionRunner, queryRows, ReadModelTimeoutError, StreamVersionConflictError, toNewEvents, WrittenStream } from '@billing/event-store';
import { BookInvoiceCommand, CreateInvoiceCommand } from '@billing/invoicing';
import { APP_CONFIG, AppConfig, ClockDrivenWork, ClockDrivenWorkRegistry, EnvironmentClock, WorkerLoop } from '@billing/platform';
import { DomainError, parseScaledDecimal, ValidationError } from '@billing/shared-kernel';
import {
  decideAdvanceSubscription,
  decideBillDue,
  decideRecordBillingFailure,
  DueBilling,
  localDateOf,
  nextDue,
  QUANTITY_SCALE,
  Subscription,
  SubscriptionBilledData,
  subscriptionEvolver,
  SubscriptionEvent,
} from '../domain';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { subscriptionInvoiceId, subscriptionStream } from '../streams';

const ACTOR = 'system:billing-engine';
/** Safety bound of one run: billings of one subscription before it yields to the others (logged when hit; the next run goes on). */
export const MAX_BILLINGS_PER_RUN = 500;
const DUE_BATCH = 100;
/** Subscriptions one catch-up works on at once (their steps overlap; bookings of one environment still take numbers in turn). */
const LANES = 4;
const POLL_MS = 1_000;
/** How long a catch-up waits without any progress (its own or another process's) before it gives up with an error. */
const STALL_LIMIT_MS = 30_000;

type Step = 'done' | 'nothing' | 'busy';

/**
 * Turns subscriptions into booked invoices, exactly once by construction:
 * each step is one transaction that locks the subscription's row (other
 * processes skip it), bills the next due instant through the invoicing
 * context's own commands (create with the id derived from subscription and
 * billAt, then book: a gapless number) and appends the subscription's events
 * with the version it loaded. Any second attempt finds the billAt billed, the
 * invoice id taken or the version moved, and writes nothing. A failure is
 * recorded on the subscription (SubscriptionBillingFailed) and retried later;
 * it never stops the others.
 */
@Injectable()
export class BillingEngine implements ClockDrivenWork, OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly name = 'subscription billing';
  private readonly logger = new Logger('BillingEngine');
  private readonly loop = new WorkerLoop(POLL_MS, () => this.runDue());
  private stopped = false;

  constructor(
    private readonly commands: CommandPath,
    private readonly runner: ProjectionRunner,
    private readonly bus: CommandBus,
    private readonly readModel: SubscriptionsReadModel,
    private readonly registry: ClockDrivenWorkRegistry,
    private readonly clock: EnvironmentClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** Worker processes bill what falls due as real time (or an environment's test clock) passes. */
  onApplicationBootstrap(): void {
    if (this.config.roles.worker) this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /**
   * Everything due in the environment up to `now` is billed when this
   * resolves, by this process or others, and the read models show it.
   * Subscriptions are worked on LANES at a time; the read models are awaited
   * once at the end rather than after every step.
   */
  catchUp(environmentId: string, now: Date): Promise<void> {
    // Work of its own: never part of a caller's transaction (a request's Idempotency-Key).
    return outsideUnitOfWork(async () => {
      const written: WrittenStream[] = [];
      let lastProgress = Date.now();
      let steps = 0;
      for (;;) {
        const due = await this.readModel.dueIn(environmentId, now, DUE_BATCH);
        if (due.length === 0 || this.stopped) break;
        let next = 0;
        const lanes = Array.from({ length: Math.min(LANES, due.length) }, async () => {
          let made = 0;
          while (next < due.length) made += await this.work(environmentId, due[next++], now, written);
          return made;
        });
        const made = (await Promise.all(lanes)).reduce((a, b) => a + b, 0);
        steps += made;
        if (made > 0) lastProgress = Date.now();
        else if (Date.now() - lastProgress > STALL_LIMIT_MS) {
          throw new Error(`billing of environment ${environmentId} made no progress for ${STALL_LIMIT_MS} ms (${due.length} subscriptions still due)`);
        } else {
          // Due rows another process holds, or whose step the read model has yet to show.
          await this.readModelsShow(written.splice(0));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      await this.readModelsShow(written);
      if (steps > 0) this.logger.log({ msg: 'billing caught up', environmentId, now: now.toISOString(), steps });
    });
  }

  /** Waits for the read models to show the steps, however long a large catch-up keeps them busy. */
  private async readModelsShow(written: readonly WrittenStream[]): Promise<void> {
    for (const deadline = Date.now() + STALL_LIMIT_MS; ; ) {
      try {
        return await this.runner.awaitProjections(written);
      } catch (error) {
        if (!(error instanceof ReadModelTimeoutError) || Date.now() > deadline) throw error;
      }
    }
  }

  private async runDue(): Promise<void> {
    try {
      const environments = await this.readModel.environmentsWithWork(new Date(), this.config.testClocks);
      for (const environmentId of environments) {
        if (this.stopped) return;
        await this.catchUp(environmentId, await this.clock.now(environmentId));
      }
    } catch (error) {
      this.logger.error({ msg: 'billing run failed; retried in the next run', error: (error as Error).message });
    }
  }

  /**
   * Steps one subscription until nothing is due, and answers how many steps
   * (billings, renewals, ends, recorded failures) it made: 0 when another
   * process holds it or got there first.
   */
  private async work(environmentId: string, subscriptionId: string, now: Date, written: WrittenStream[]): Promise<number> {
    for (let steps = 0; steps < MAX_BILLINGS_PER_RUN; steps++) {
      // Nothing to do for a row listed as due: the read model has yet to show another process's step.
      if ((await this.step(environmentId, subscriptionId, now, written)) !== 'done') return steps;
    }
    this.logger.warn({ msg: 'billing run bound reached; the rest is billed in the next run', environmentId, subscriptionId, bound: MAX_BILLINGS_PER_RUN });
    return MAX_BILLINGS_PER_RUN;
  }

  /** One transaction: the subscription's next due work (bill, renew, end), or nothing. */
  private async step(environmentId: string, subscriptionId: string, now: Date, written: WrittenStream[]): Promise<Step> {
    const context: CommandContext = {
      meta: { now, newId: randomUUID },
      metadata: { actor: ACTOR, requestId: null, correlationId: randomUUID(), causationId: null },
    };
    const stream = subscriptionStream(environmentId, subscriptionId);
    let billing: DueBilling | null = null;
    try {
      return await this.commands.atomically(async (unit) => {
        const [row] = await queryRows(unit.manager, `select 1 from subscriptions where environment_id = $1 and id = $2 for update skip locked`, [
          environmentId,
          subscriptionId,
        ]);
        if (!row) return 'busy';
        const { state, version } = await this.commands.load(stream, subscriptionEvolver);
        billing = dueNow(state, now);
        if (billing === null) return 'nothing';
        const events =
          billing.charges.length === 0
            ? decideAdvanceSubscription({ subscriptionId }, state, context.meta)
            : await this.bill(environmentId, state as Subscription, billing, context);
        if (events.length === 0) return 'nothing';
        await this.commands.transaction((session) =>
          session.append([{ stream, expectedVersion: version, events: toNewEvents(events, context.meta) }], context.metadata),
        );
        return 'done';
      }, written);
    } catch (error) {
      if (error instanceof StreamVersionConflictError) return 'busy';
      if (billing === null) throw error;
      await this.recordFailure(environmentId, subscriptionId, billing, error, context, written);
      return 'done';
    }
  }

  /** Prices the charges as of now, creates and books their invoice, and decides the subscription's events. */
  private async bill(environmentId: string, subscription: Subscription, due: DueBilling, context: CommandContext): Promise<SubscriptionEvent[]> {
    const items = new Map(subscription.items.map((item) => [item.id, item]));
    const prices = await this.readModel.prices(environmentId, [...new Set(due.charges.map((charge) => items.get(charge.itemId)!.priceId))]);
    const amounts: Record<string, bigint> = {};
    const unitAmounts = new Map<string, number>();
    for (const { itemId } of due.charges) {
      const item = items.get(itemId)!;
      const found = prices.get(item.priceId);
      const entry = found?.price.pricing[subscription.currency];
      if (!found || !entry) {
        throw ValidationError.at(`/items/${itemId}`, `price ${item.priceId} has no pricing in ${subscription.currency.toUpperCase()} any more`);
      }
      amounts[itemId] = amountForScaledQuantity(found.price.priceModel, entry, parseScaledDecimal(item.quantity, QUANTITY_SCALE, `/items/${itemId}/quantity`));
      if (found.price.priceModel === 'fee') unitAmounts.set(itemId, (entry as { unitAmount: number }).unitAmount);
    }
    const invoiceId = subscriptionInvoiceId(environmentId, subscription.id, due.billAt);
    const events = decideBillDue({ subscriptionId: subscription.id, billAt: due.billAt, invoiceId, amounts }, subscription, context.meta);
    const billed = events.find((event) => event.type === 'SubscriptionBilled')!.data as SubscriptionBilledData;
    const date = localDateOf(due.billAt, subscription.timeZone);
    await this.bus.execute(
      new CreateInvoiceCommand(
        environmentId,
        {
          customer: subscription.customer as never,
          currency: subscription.currency.toUpperCase(),
          date,
          memo: `Subscription ${subscription.handle}`,
          items: billed.lines.map((line) => {
            const item = items.get(line.itemId)!;
            // A whole fee period reads as quantity × unit price; a tier, package or pro-rated share is one amount.
            const unitAmount = unitAmounts.get(line.itemId);
            const whole = unitAmount !== undefined && line.daysUsed === line.daysInFullPeriod;
            return {
              title: prices.get(item.priceId)!.price.name,
              description: item.product.name,
              periodStart: line.period?.start ?? null,
              periodEnd: line.period?.end ?? null,
              quantity: whole ? Number(item.quantity) : 1,
              unitAmount: whole ? unitAmount : line.amount,
              taxCode: item.taxCode,
            };
          }),
        },
        context,
        invoiceId,
      ),
    );
    await this.bus.execute(new BookInvoiceCommand(environmentId, invoiceId, date, context, 1));
    return events;
  }

  /** Records the failure on the subscription (its own transaction) so the engine retries it later and goes on with the others. */
  private async recordFailure(
    environmentId: string,
    subscriptionId: string,
    due: DueBilling,
    error: unknown,
    context: CommandContext,
    written: WrittenStream[],
  ): Promise<void> {
    const reason = error instanceof DomainError ? error.message : 'an unexpected error (see the service log)';
    this.logger.warn({ msg: 'billing failed; retried later', environmentId, subscriptionId, billAt: due.billAt.toISOString(), reason, error: (error as Error).message });
    await this.commands.atomically(
      () =>
        this.commands.handle(
          subscriptionStream(environmentId, subscriptionId),
          subscriptionEvolver,
          (state) => decideRecordBillingFailure({ subscriptionId, billAt: due.billAt, reason }, state, context.meta),
          context,
        ),
      written,
    );
  }
}

/** The subscription's next due work at `now`, unless a failed attempt at it waits for its retry. */
function dueNow(state: Parameters<typeof nextDue>[0], now: Date): DueBilling | null {
  const due = nextDue(state);
  if (due === null || due.billAt > now || state.status === 'none') return null;
  const failure = state.billingFailure;
  if (failure !== null && failure.billAt === due.billAt.toISOString() && Date.parse(failure.retryAt) > now.getTime()) return null;
  return due;
}
