import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { ExistingPrice } from '@billing/catalog';
import {
  CommandContext,
  CommandPath,
  outsideUnitOfWork,
  ProjectionRunner,
  queryRows,
  ReadModelTimeoutError,
  StreamRef,
  StreamVersionConflictError,
  UnitOfWork,
  WrittenStream,
} from '@billing/event-store';
import {
  BookInvoiceCommand,
  CreateInvoiceCommand,
  Invoice,
  invoiceEvolver,
  invoiceStream,
  RequestedLine,
  ReserveInvoiceNumbersCommand,
  UpdateInvoiceCommand,
} from '@billing/invoicing';
import { APP_CONFIG, AppConfig, ClockDrivenWork, ClockDrivenWorkRegistry, EnvironmentClock, ScopedClock, WorkerLoop } from '@billing/platform';
import { CommandMetadata, ConflictError, DomainError, foldEvents, isDueBy } from '@billing/shared-kernel';
import {
  usageChargeOf,
  usageLinesOf,
  withUsageLines,
  billsInvoice,
  decideAdvancePause,
  decideAdvanceSubscription,
  decideAdvanceTrial,
  decideBillDue,
  decideBookUsageInvoice,
  dueBooking,
  dueChange,
  decideDropChange,
  PendingBooking,
  UsageCharge,
  decideRecordBillingFailure,
  DueBilling,
  retryDue,
  nextDue,
  Subscription,
  subscriptionEvolver,
  SubscriptionEvent,
  SubscriptionState,
} from '../domain';
import { PaymentTermsQuery } from '../ports';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { subscriptionInvoiceId, subscriptionStream } from '../streams';
import { UsageStore } from '../usage/usage-store';
import { ChangeBilling } from '../change-items/change-billing';
import { BillingInputs, BillingSources, CATALOG_PRICING, composeDue, invoiceInputOf, useCustomerDiscounts } from './invoice-inputs';

const ACTOR = 'system:billing-engine';
/**
 * Steps of one subscription in one turn: after this many it yields to the
 * other due subscriptions and is taken up again in the same catch-up, which
 * ends only when nothing is due. A fairness bound, not a cap on a catch-up: a
 * 5-year advance of a daily subscription books all its 1 826 invoices before
 * it answers, as the advance promises.
 */
export const MAX_STEPS_PER_TURN = 500;
/** Due subscriptions claimed in one transaction, which ends after about as many steps. */
export const BATCH_SIZE = 100;
/** Batches one catch-up works on at once (their steps overlap; their bookings take the environment's numbers in turn, one batch after another). */
const LANES = 4;
/** Before the first subscription in (next_work_at, id) order. */
const START = { at: '-infinity', id: '00000000-0000-0000-0000-000000000000' };
const POLL_MS = 1_000;
/** How long a catch-up waits without any progress (its own or another process's) before it gives up with an error. */
const STALL_LIMIT_MS = 30_000;

/** A step made, and more is due ('again') or not ('done'); nothing due; the subscription busy (composed again later). */
type Step = 'again' | 'done' | 'nothing' | 'busy';
type Billing = DueBilling & { retryOf?: string };

/** An invoice a step created, booked at the end of its batch. */
interface Booking {
  readonly subscriptionId: string;
  readonly invoiceId: string;
  readonly date: string;
  readonly due: Billing;
  readonly context: CommandContext;
}

/** What the subscriptions of one batch share: reads that stay as they are within it, and the invoices booked at its end. */
class Batch {
  readonly bookings: Booking[] = [];
  /** The catalog's prices read so far (null: gone from it). */
  readonly prices = new Map<string, ExistingPrice | null>();
  paymentTermsDays: number | undefined;
  /** The subscription whose work staged each stream's appends. */
  private readonly owners = new Map<string, string>();

  constructor(
    readonly environmentId: string,
    readonly unit: UnitOfWork,
  ) {}

  /** Runs work of the subscription's, which owns the appends it stages. */
  async owning<Result>(subscriptionId: string, work: () => Promise<Result>): Promise<Result> {
    const from = this.unit.staged!.length;
    try {
      return await work();
    } finally {
      for (const { append } of this.unit.staged!.slice(from)) this.owners.set(streamKey(append.stream), subscriptionId);
    }
  }

  /** The subscription whose staged append another writer's moved a stream under (written at commit), if any. */
  ownerOf(error: unknown): string | undefined {
    return error instanceof StreamVersionConflictError ? this.owners.get(streamKey(error.stream)) : undefined;
  }
}

function streamKey({ environmentId, streamType, streamId }: StreamRef): string {
  return `${environmentId}/${streamType}/${streamId}`;
}

/** A booking at the end of a batch failed: the batch rolled back and runs again without its subscription. */
class BookingFailed extends Error {
  constructor(
    readonly booking: Booking,
    readonly reason: unknown,
  ) {
    super(`booking the invoice ${booking.invoiceId} of subscription ${booking.subscriptionId} failed`);
  }
}

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
        const claim = this.claimsInTurn(environmentId, now);
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
   * One pass's claims, taken one after another (each after the last
   * subscription the one before claimed): up to BATCH_SIZE due subscriptions
   * in one statement, locked until the claiming batch ends and skipped by
   * every other claim meanwhile.
   */
  private claimsInTurn(environmentId: string, now: Date): (manager: EntityManager) => Promise<string[]> {
    let after = START;
    let turn: Promise<unknown> = Promise.resolve();
    return (manager) => {
      const claimed = turn.then(async () => {
        // A row whose stream moved past it (another process's batch just billed it, the projection has yet to show
        // it) is claimed too and found with nothing due when loaded. Skipping such rows saved that load, but a catch-up
        // then depended on the subscriptions projection moving, and with three processes it once stood still for
        // 30 s ("made no progress") for a cause not found yet: correctness first.
        const rows = await queryRows<{ id: string; at: string }>(
          manager,
          `select s.id, s.next_work_at::text as at from subscriptions s
            where s.environment_id = $1 and s.next_work_at <= $2 and (s.next_work_at, s.id) > ($3::timestamptz, $4::uuid)
            order by s.next_work_at, s.id limit $5 for update of s skip locked`,
          [environmentId, now, after.at, after.id, BATCH_SIZE],
        );
        if (rows.length > 0) after = rows[rows.length - 1];
        return rows.map((row) => row.id);
      });
      turn = claimed.catch(() => undefined);
      return claimed;
    };
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
        claimIn = (manager) =>
          queryRows<{ id: string }>(
            manager,
            `select id from subscriptions where environment_id = $1 and id = any($2::uuid[]) order by next_work_at, id for update skip locked`,
            [environmentId, rest],
          ).then((rows) => rows.map((row) => row.id));
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
          events = await this.bookAfterGrace(environmentId, state as Subscription, booking, context, unit.manager);
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

  /** The usage of a pending draft's charges, rated with every event counted by now, and their invoice lines. */
  private async rerate(
    environmentId: string,
    subscription: Subscription,
    booking: PendingBooking,
    manager: EntityManager,
  ): Promise<{ usage: UsageCharge[]; lines: RequestedLine[] }> {
    const sources = this.inputs.sources(environmentId, subscription, manager);
    const prices = await sources.prices(subscription.items.map((item) => item.priceId));
    const usage: UsageCharge[] = [];
    const lines: RequestedLine[] = [];
    for (const charge of booking.usage) {
      const item = subscription.items.find((candidate) => candidate.id === charge.itemId)!;
      const rated = await sources.usage(item, charge.period);
      usage.push(usageChargeOf(item.id, charge.period, rated));
      lines.push(...usageLinesOf(item, prices.get(item.priceId)?.name ?? item.priceName, rated, charge.period, CATALOG_PRICING));
    }
    return { usage, lines };
  }

  /**
   * The end of a draft's grace period: its usage re-rated with every event
   * counted by now, its usage lines replaced (the other lines kept by id),
   * booked, and SubscriptionInvoiceBooked recorded — in the step's one
   * transaction, like a billing.
   */
  private async bookAfterGrace(
    environmentId: string,
    subscription: Subscription,
    booking: PendingBooking,
    context: CommandContext,
    manager: EntityManager,
  ): Promise<SubscriptionEvent[]> {
    const loaded = await this.commands.load(invoiceStream(environmentId, booking.invoiceId), invoiceEvolver, manager);
    if (loaded.state.status === 'none') throw new Error(`the draft ${booking.invoiceId} of subscription ${subscription.id} does not exist`);
    const invoice = loaded.state as Invoice;
    if (invoice.status !== 'draft') {
      // Booked by hand during the grace period (and maybe voided since): it keeps what it says; later events count as corrections on the next invoice.
      return decideBookUsageInvoice({ subscriptionId: subscription.id, invoiceId: booking.invoiceId, usage: booking.usage }, subscription, context.meta);
    }
    let rerated: { usage: UsageCharge[]; lines: RequestedLine[] } | null;
    try {
      rerated = await this.rerate(environmentId, subscription, booking, manager);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // The usage cannot be rated now (its metric or pricing is gone): the draft is booked as billed, so the grace period still ends;
      // late events then count as corrections, which the next billing rates (or records as its failure).
      this.logger.warn({
        msg: 'usage could not be re-rated at the end of the grace period; booked as billed',
        environmentId,
        subscriptionId: subscription.id,
        invoiceId: booking.invoiceId,
        reason: error.message,
      });
      rerated = null;
    }
    if (rerated === null) {
      await this.bus.execute(new BookInvoiceCommand(environmentId, booking.invoiceId, invoice.date, context));
      return decideBookUsageInvoice({ subscriptionId: subscription.id, invoiceId: booking.invoiceId, usage: booking.usage }, subscription, context.meta);
    }
    const { usage, lines: usageLines } = rerated;
    const kept = invoice.lines.map((line): RequestedLine => ({
      id: line.id,
      quantity: line.quantity,
      unitAmount: line.unitAmount,
      title: line.title,
      description: line.description,
      sku: line.sku,
      periodStart: line.periodStart,
      periodEnd: line.periodEnd,
      discount: line.discount as RequestedLine['discount'],
      taxCode: line.tax.taxCode,
    }));
    const lines = withUsageLines(kept, booking.usageLines, usageLines);
    await this.bus.execute(
      new UpdateInvoiceCommand(environmentId, booking.invoiceId, { date: invoice.date, currency: invoice.currency, items: lines }, context),
    );
    await this.bus.execute(new BookInvoiceCommand(environmentId, booking.invoiceId, invoice.date, context));
    return decideBookUsageInvoice({ subscriptionId: subscription.id, invoiceId: booking.invoiceId, usage }, subscription, context.meta);
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

/** The invoice was composed with a customer's once discount another invoice used first (UseCustomerDiscountsCommand). */
function isRecomposeConflict(error: unknown): boolean {
  return error instanceof ConflictError && error.code === 'customer-discount-ended';
}

/**
 * Whether more is due at `now` after a step: the step's own checks, on the
 * state its events lead to. A subscription with more is stepped again at
 * once; one without needs no step that loads it only to find nothing (what
 * this misses, the catch-up's next pass still finds).
 */
function moreDue(subscriptionId: string, state: SubscriptionState, meta: CommandMetadata): boolean {
  const { now } = meta;
  return (
    decideAdvanceTrial({ subscriptionId }, state, meta).length > 0 ||
    decideAdvancePause({ subscriptionId }, state, meta).length > 0 ||
    dueChange(state, now) !== null ||
    retryDue(state, now) !== null ||
    dueNow(state, now) !== null ||
    dueBooking(state, now) !== null
  );
}

/** The subscription's next due work at `now`, unless a failed attempt at it waits for its retry. */
function dueNow(state: Parameters<typeof nextDue>[0], now: Date): DueBilling | null {
  const due = nextDue(state);
  if (due === null || !isDueBy(due.billAt, now) || state.status === 'none') return null;
  const failure = state.billingFailure;
  if (failure !== null && failure.billAt === due.billAt.toISOString() && Date.parse(failure.retryAt) > now.getTime()) return null;
  return due;
}
