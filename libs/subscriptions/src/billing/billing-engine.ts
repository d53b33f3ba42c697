import {
  CommandContext,
  CommandPath,
  outsideUnitOfWork,
  ProjectionRunner,
  ReadModelTimeoutError,
  StreamVersionConflictError,
  WrittenStream,
} from '@billing/event-store';
import { BookInvoiceCommand, CreateInvoiceCommand, ReserveInvoiceNumbersCommand } from '@billing/invoicing';
import { APP_CONFIG, AppConfig, ClockDrivenWork, ClockDrivenWorkRegistry, EnvironmentClock, ScopedClock, WorkerLoop } from '@billing/platform';
import { DomainError, foldEvents } from '@billing/shared-kernel';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EntityManager } from 'typeorm';
import { ChangeBilling } from '../change-items/change-billing';
import {
  billsInvoice,
  decideAdvancePause,
  decideAdvanceSubscription,
  decideAdvanceTrial,
  decideBillDue,
  decideDropChange,
  decideRecordBillingFailure,
  dueBooking,
  dueChange,
  nextDue,
  retryDue,
  Subscription,
  SubscriptionEvent,
  subscriptionEvolver,
} from '../domain';
import { PaymentTermsQuery } from '../ports';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { subscriptionInvoiceId, subscriptionStream } from '../streams';
import { UsageStore } from '../usage/usage-store';
import { Batch, BATCH_SIZE, Billing, Booking, BookingFailed, claimAgain, claimsInTurn, dueNow, isRecomposeConflict, moreDue, Step } from './billing-batch';
import { GraceBooking } from './grace-booking';
import { BillingInputs, BillingSources, composeDue, invoiceInputOf, useCustomerDiscounts } from './invoice-inputs';

const ACTOR = 'system:billing-engine';
/**
 * Steps of one subscription in one turn: after this many it yields to the
 * other due subscriptions and is taken up again in the same catch-up, which
 * ends only when nothing is due. A fairness bound, not a cap on a catch-up: a
 * 5-year advance of a daily subscription books all its 1 826 invoices before
 * it answers, as the advance promises.
 */
export const MAX_STEPS_PER_TURN = 500;
/** Batches one catch-up works on at once (their steps overlap; their bookings take the environment's numbers in turn, one batch after another). */
const LANES = 4;
const POLL_MS = 1_000;
/** How long a catch-up waits without any progress (its own or another process's) before it gives up with an error. */
const STALL_LIMIT_MS = 30_000;

/**
 * Turns subscriptions into booked invoices, exactly once by construction:
 * one transaction works a batch of due subscriptions whose rows it locks with
 * one claim (other processes skip them and claim others). Each step of a
 * subscription (a savepoint of its own in the batch) bills the next due
 * instant through the invoicing context's own commands (create with the id
 * derived from subscription and billAt) and appends the subscription's
 * events with the version it loaded; the batch's invoices are booked at its
 * end, their gapless numbers taken from the environment's counter with one
 * statement just before the commit, so other processes' batches wait for
 * that row only that long. Any second attempt finds the billAt billed, the
 * invoice id taken or the version moved, and writes nothing. A failure is
 * recorded on the subscription (SubscriptionBillingFailed) and retried later;
 * it never stops the others: a failing step rolls back alone, a failing
 * booking rolls the batch back, which then runs again without it.
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
    private readonly queries: QueryBus,
    private readonly readModel: SubscriptionsReadModel,
    private readonly registry: ClockDrivenWorkRegistry,
    private readonly clock: EnvironmentClock,
    private readonly realClock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: UsageStore,
    private readonly inputs: BillingInputs,
    private readonly changes: ChangeBilling,
    private readonly grace: GraceBooking,
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
   * Each pass claims the due subscriptions in (next_work_at, id) order, in
   * batches LANES at a time, after the last one claimed (the read model
   * still lists the ones just worked until it catches up); the read models
   * are awaited once per pass, and another pass runs while any is still due
   * (one another process held, or one that yielded its turn).
   */
  catchUp(environmentId: string, now: Date): Promise<void> {
    // Work of its own: never part of a caller's transaction (a request's Idempotency-Key).
    return outsideUnitOfWork(async () => {
      const written: WrittenStream[] = [];
      let lastProgress = Date.now();
      let steps = 0;
      while (!this.stopped) {
        const claim = claimsInTurn(environmentId, now);
        const lanes = Array.from({ length: LANES }, async () => {
          let made = 0;
          for (let batch: number | null; (batch = await this.batch(environmentId, now, claim, written)) !== null;) made += batch;
          return made;
        });
        const made = (await Promise.all(lanes)).reduce((a, b) => a + b, 0);
        steps += made;
        await this.readModelsShow(written.splice(0));
        const due = await this.readModel.dueIn(environmentId, now, 1);
        if (due.length === 0) break;
        if (made > 0) lastProgress = Date.now();
        else if (Date.now() - lastProgress > STALL_LIMIT_MS) {
          throw new Error(`billing of environment ${environmentId} made no progress for ${STALL_LIMIT_MS} ms (subscriptions still due)`);
        } else {
          // Due rows another process holds, or whose step the read model has yet to show.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      if (steps > 0) this.logger.log({ msg: 'billing caught up', environmentId, now: now.toISOString(), steps });
    });
  }

  /**
   * One transaction over the subscriptions `claim` locks: each worked as
   * before (every step in a savepoint of its own), then the invoices they
   * created booked together. A booking that fails rolls the batch back; the
   * batch runs again without that subscription, whose failure is recorded
   * (none for a conflict: a later pass composes it again). Answers the steps
   * made, or null when nothing was left to claim.
   */
  private async batch(
    environmentId: string,
    now: Date,
    claim: (manager: EntityManager) => Promise<string[]>,
    written: WrittenStream[],
  ): Promise<number | null> {
    let claimed: string[] = [];
    let batch: Batch | null = null;
    for (let claimIn = claim; ;) {
      try {
        return await this.commands.atomically(
          async (unit) => {
            batch = null;
            claimed = await claimIn(unit.manager);
            // Nothing left to claim ends the lane; a batch run again whose other subscriptions were taken meanwhile made no steps.
            if (claimed.length === 0) return claimIn === claim ? null : 0;
            // One statement for the batch's streams: each step then loads without one, and takes no savepoint unless it makes a statement.
            await this.commands.preload(claimed.map((id) => subscriptionStream(environmentId, id)));
            const working = (batch = new Batch(environmentId, unit));
            let steps = 0;
            for (const subscriptionId of claimed) {
              // A batch whose subscriptions have many instants due each (a long advance) commits after about BATCH_SIZE steps;
              // the subscriptions it did not reach are claimed again in the next pass.
              if (steps >= BATCH_SIZE) break;
              steps += await working.owning(subscriptionId, () => this.work(working, subscriptionId, now, written));
              await this.endOfTurn();
            }
            await this.bookAll(working);
            return steps;
          },
          written,
          { stageAppends: true },
        );
      } catch (error) {
        const failing = error instanceof BookingFailed ? error.booking.subscriptionId : (batch as Batch | null)?.ownerOf(error);
        if (!failing) throw error;
        if (error instanceof BookingFailed && !(error.reason instanceof StreamVersionConflictError || isRecomposeConflict(error.reason))) {
          const { booking, reason } = error;
          await this.recordFailure(environmentId, booking.subscriptionId, booking.due, reason, booking.context, written);
        }
        const rest = claimed.filter((id) => id !== failing);
        claimIn = (manager) => claimAgain(manager, environmentId, rest);
      }
    }
  }

  /** The batch's invoices booked in the order created, with numbers taken from the environment's counter in one statement. */
  private async bookAll(batch: Batch): Promise<void> {
    const { environmentId, bookings, unit } = batch;
    if (bookings.length === 0) return;
    // From the reservation to the commit every other batch of the environment waits for the counter row, so this
    // stretch makes no round trip it can avoid: a failing reservation or booking fails the whole batch, so neither
    // takes a savepoint, and the invoices the bookings load were created in this batch (read from what it staged).
    // The reservation appends nothing, so the first booking's context serves it.
    await unit.wholeOrNothing(async () => {
      const invoiceIds = bookings.map((booking) => booking.invoiceId);
      const numbers = await this.bus.execute(new ReserveInvoiceNumbersCommand(environmentId, 'invoice', invoiceIds, bookings[0].context));
      for (const booking of bookings) {
        await batch.owning(booking.subscriptionId, () =>
          this.bus
            .execute(new BookInvoiceCommand(environmentId, booking.invoiceId, booking.date, booking.context, 1, numbers.get(booking.invoiceId)))
            .catch((reason: unknown) => {
              throw new BookingFailed(booking, reason);
            }),
        );
        await this.endOfTurn();
      }
    });
  }

  /**
   * Lets the event loop go after each step and each booking: a step whose stream was read ahead, and a booking,
   * make no round trip, so a batch would otherwise hold the loop, and every request of this process waiting on it,
   * for the whole of its composing and booking (a `GET /invoices/{id}` p99 of 250–500 ms against 147 ms with a
   * turn each, docs/BENCHMARKS.md). A turn inside the bookings holds the number counter that much longer.
   */
  private async endOfTurn(): Promise<void> {
    await nextTurn();
  }

  /** Waits for the read models to show the steps, however long a large catch-up keeps them busy. */
  private async readModelsShow(written: readonly WrittenStream[]): Promise<void> {
    for (const deadline = Date.now() + STALL_LIMIT_MS; ;) {
      try {
        return await this.runner.awaitProjections(written);
      } catch (error) {
        if (!(error instanceof ReadModelTimeoutError) || Date.now() > deadline) throw error;
      }
    }
  }

  private async runDue(): Promise<void> {
    try {
      const environments = await this.readModel.environmentsWithWork(this.realClock.base.now(), this.config.testClocks);
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
  private async work(batch: Batch, subscriptionId: string, now: Date, written: WrittenStream[]): Promise<number> {
    let steps = 0;
    // Nothing to do for a row listed as due: the read model has yet to show another process's step.
    for (let step: Step = 'again'; step === 'again';) {
      if (steps === MAX_STEPS_PER_TURN) return this.yieldTurn(batch, subscriptionId);
      step = await this.step(batch, subscriptionId, now, written);
      if (step === 'again' || step === 'done') steps++;
    }
    return steps;
  }

  private yieldTurn(batch: Batch, subscriptionId: string): number {
    this.logger.log({
      msg: 'billing turn bound reached; the subscription yields to the others and goes on in this catch-up',
      environmentId: batch.environmentId,
      subscriptionId,
      bound: MAX_STEPS_PER_TURN,
    });
    return MAX_STEPS_PER_TURN;
  }

  /** One savepoint in the batch: the subscription's next due work (bill, renew, end), or nothing. */
  private async step(batch: Batch, subscriptionId: string, now: Date, written: WrittenStream[]): Promise<Step> {
    const { environmentId, unit } = batch;
    const context: CommandContext = {
      meta: { now, newId: randomUUID },
      metadata: { actor: ACTOR, requestId: null, correlationId: randomUUID(), causationId: null },
    };
    const stream = subscriptionStream(environmentId, subscriptionId);
    let billing: Billing | null = null;
    // The invoice it leaves to book counts only once its savepoint is released (what it staged is dropped with the savepoint).
    const bookings: Booking[] = [];
    try {
      const step = await this.commands.run<Step>(context, 'reject', async (session) => {
        const { state } = await session.load(stream, subscriptionEvolver);
        const stepped = (events: readonly SubscriptionEvent[]): Step => {
          session.append(stream, events);
          return moreDue(subscriptionId, foldEvents(subscriptionEvolver, events, state), context.meta) ? 'again' : 'done';
        };
        // The trial's notice and end come before anything billed at the same instant (its first charges bill at its end).
        const trial = decideAdvanceTrial({ subscriptionId }, state, context.meta);
        if (trial.length > 0) return stepped(trial);
        // A pause ends at its resumeAt, after what falls due before it and before what falls due at that instant.
        const resumed = decideAdvancePause({ subscriptionId }, state, context.meta);
        if (resumed.length > 0) return stepped(resumed);
        // A scheduled change of items applies at its instant, before the billing due then (whose charges use the new items).
        const change = dueChange(state, now);
        const upcoming = change === null ? null : nextDue(state);
        if (change !== null && (upcoming === null || Date.parse(change.effectiveAt) <= upcoming.billAt.getTime())) {
          const subscription = state as Subscription;
          const sources = this.inputs.sources(environmentId, subscription, unit.manager);
          const changed = await this.changes.applyScheduled(environmentId, subscription, change, sources, context, unit.manager).catch((error: unknown) => {
            if (!(error instanceof DomainError)) throw error;
            // It cannot be priced now (e.g. a price without pricing in the currency any more): dropped, so billing goes on.
            this.logger.warn({
              msg: 'a scheduled change could not be applied; dropped',
              environmentId,
              subscriptionId,
              changeId: change.id,
              reason: error.message,
            });
            return decideDropChange({ subscriptionId, changeId: change.id, reason: error.message }, state, context.meta);
          });
          if (changed.length === 0) return 'nothing';
          return stepped(changed);
        }
        // A failed item's charge whose retry has come goes before the next charges (it is older than them).
        const retry = retryDue(state, now);
        const next = dueNow(state, now);
        const due = retry !== null && (next === null || retry.billAt <= next.billAt) ? retry : next;
        const booking = dueBooking(state, now);
        let events: SubscriptionEvent[];
        if (booking !== null && (due === null || Date.parse(booking.bookAt) <= due.billAt.getTime())) {
          // A draft kept open for late usage comes first: its grace period ended before the next billing.
          events = await this.grace.bookAfterGrace(environmentId, state as Subscription, booking, context, unit.manager);
        } else {
          billing = due;
          if (billing === null) return 'nothing';
          events = !billsInvoice(billing)
            ? decideAdvanceSubscription({ subscriptionId }, state, context.meta)
            : await this.bill(batch, state as Subscription, billing, context, bookings);
        }
        if (events.length === 0) return 'nothing';
        return stepped(events);
      });
      batch.bookings.push(...bookings);
      return step;
    } catch (error) {
      // Another writer moved a stream the step loaded, or used a customer's once discount the invoice was composed with: composed again.
      if (error instanceof StreamVersionConflictError || isRecomposeConflict(error)) return 'busy';
      if (billing === null) throw error;
      await this.recordFailure(environmentId, subscriptionId, billing, error, context, written);
      return 'again';
    }
  }

  /**
   * Loads what the charges need, composes their invoice (composeInvoice),
   * creates it, leaves it in `bookings` to book at the end of the batch
   * (unless a grace period keeps it a draft), and decides the subscription's
   * events.
   */
  private async bill(batch: Batch, subscription: Subscription, due: Billing, context: CommandContext, bookings: Booking[]): Promise<SubscriptionEvent[]> {
    const { environmentId, unit } = batch;
    const manager = unit.manager;
    const composed = await composeDue(subscription, due, this.batchSources(batch, subscription), (skipped) =>
      this.logger.warn({
        msg: 'a usage correction could not be rated; the billing goes on without it',
        environmentId,
        subscriptionId: subscription.id,
        ...skipped,
      }),
    );
    if (composed.kind === 'failed') {
      const { itemId, error } = composed;
      // This item's charge cannot be priced or rated: it alone waits for its retry; the next step bills the others.
      this.logger.warn({
        msg: 'billing an item failed; it is retried later, the other items are billed',
        environmentId,
        subscriptionId: subscription.id,
        itemId,
        billAt: due.billAt.toISOString(),
        reason: error.message,
      });
      return decideRecordBillingFailure({ subscriptionId: subscription.id, billAt: due.billAt, reason: error.message, itemId }, subscription, context.meta);
    }
    const grace = composed.usage.length === 0 ? 0 : (await this.usage.settings(environmentId, manager)).usageGracePeriodHours;
    const bookAt = grace > 0 ? new Date(due.billAt.getTime() + grace * 3_600_000) : null;
    // Charges of an instant the other items billed already (a failed item catching up) go on an invoice of their own.
    const billedAlready = subscription.lastBilledAt !== null && due.billAt.getTime() <= Date.parse(subscription.lastBilledAt);
    const invoiceId = subscriptionInvoiceId(environmentId, subscription.id, due.billAt, billedAlready ? due.charges.map((charge) => charge.itemId) : undefined);
    const { amounts, usage: usageCharges, corrections, usageLines, invoice } = composed;
    const events = decideBillDue(
      { subscriptionId: subscription.id, billAt: due.billAt, invoiceId, amounts, usage: usageCharges, corrections, bookAt, usageLines, retryOf: due.retryOf },
      subscription,
      context.meta,
    );
    // The environment's payment terms (GET/PUT /paymentsettings; 0 by default: due on the invoice date), read once per batch.
    const paymentTermsDays = (batch.paymentTermsDays ??= await this.queries.execute(new PaymentTermsQuery(environmentId, manager)));
    // Made out to the customer record when the subscription has one: drafts show it as it is, booking freezes it.
    await this.bus.execute(new CreateInvoiceCommand(environmentId, invoiceInputOf(invoice, paymentTermsDays, subscription.customerId), context, invoiceId));
    await useCustomerDiscounts(this.bus, environmentId, subscription, composed, invoiceId, context);
    // With usage and a grace period the invoice stays a draft: late events still count until bookAt (bookAfterGrace).
    if (bookAt === null) bookings.push({ subscriptionId: subscription.id, invoiceId, date: invoice.date, due, context });
    return events;
  }

  /** The subscription's billing sources, the catalog's prices read once per batch. */
  private batchSources(batch: Batch, subscription: Subscription): BillingSources {
    const sources = this.inputs.sources(batch.environmentId, subscription, batch.unit.manager);
    return {
      ...sources,
      prices: async (priceIds) => {
        const unread = priceIds.filter((id) => !batch.prices.has(id));
        if (unread.length > 0) {
          const found = await sources.prices(unread);
          for (const id of unread) batch.prices.set(id, found.get(id) ?? null);
        }
        return new Map(priceIds.flatMap((id) => (batch.prices.get(id) ? [[id, batch.prices.get(id)!] as const] : [])));
      },
    };
  }

  /** Records the failure on the subscription (its own transaction) so the engine retries it later and goes on with the others. */
  private async recordFailure(
    environmentId: string,
    subscriptionId: string,
    due: Billing,
    error: unknown,
    context: CommandContext,
    written: WrittenStream[],
  ): Promise<void> {
    const reason = error instanceof DomainError ? error.message : 'an unexpected error (see the service log)';
    this.logger.warn({
      msg: 'billing failed; retried later',
      environmentId,
      subscriptionId,
      billAt: due.billAt.toISOString(),
      reason,
      error: (error as Error).message,
    });
    await this.commands.atomically(
      () =>
        this.commands.handle(
          subscriptionStream(environmentId, subscriptionId),
          subscriptionEvolver,
          // A retried item's charge that fails again stays that item's failure.
          (state) => decideRecordBillingFailure({ subscriptionId, billAt: due.billAt, reason, itemId: due.retryOf }, state, context.meta),
          context,
        ),
      written,
    );
  }
}
