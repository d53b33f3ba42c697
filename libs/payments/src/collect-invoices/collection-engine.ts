import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CommandContext, CommandPath, outsideUnitOfWork, ProjectionRunner, ReadModelTimeoutError, StreamVersionConflictError } from '@billing/event-store';
import {
  APP_CONFIG,
  AppConfig,
  ClockDrivenWork,
  ClockDrivenWorkRegistry,
  EnvironmentClock,
  Metrics,
  WorkInFlight,
  ScopedClock,
  WorkerLoop,
} from '@billing/platform';
import { ConflictError, DomainError } from '@billing/shared-kernel';
import { INVOICING_PROJECTION, invoiceEvolver, invoiceStream } from '@billing/invoicing';
import {
  AttemptOutcome,
  CollectedInvoice,
  Collection,
  collectionEvolver,
  CollectionState,
  decideRecordAttempt,
  decideStartAttempt,
  decideStopCollection,
  paymentEvolver,
} from '../domain';
import { PaymentFlow } from '../payment-flow';
import { PAYMENTS_PROJECTION } from '../read-model/payments.projection';
import { CollectionDue, PaymentsReadModel } from '../read-model/payments.read-model';
import { PAYMENT_SETTLEMENTS_REACTOR } from '../settle-invoices/payment-settlements.reactor';
import { COLLECTION_REACTOR } from './collection.reactor';
import { collectionStream, paymentStream } from '../streams';

const POLL_MS = 1_000;
const BATCH = 100;
/** Read-model timeouts an advance waits out for the reactors it depends on (about 30 s at the default 5 s). */
const CATCH_UP_WAITS = 6;

/**
 * Makes the collection tries that are due, in the environment's time (its
 * test clock moves them): claim the try on the collection stream (another
 * process that claimed it first wins), pay with the claimed payment id, and
 * record what the payment came to. A try whose payment is still pending waits
 * for the resolver and is looked at again once the payment has an outcome
 * (it never holds up the others); one whose process died before paying is
 * paid again under the same id (the gateway's idempotency reference).
 */
@Injectable()
export class CollectionEngine implements ClockDrivenWork, OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly name = 'invoice collection';
  private readonly logger = new Logger('Collections');
  private readonly loop = new WorkerLoop(POLL_MS, () => this.runDue());
  /** The worker's passes over an environment's tries under way: an advance waits for them (catchUp). */
  private readonly workerPasses = new WorkInFlight();

  constructor(
    private readonly commands: CommandPath,
    private readonly flow: PaymentFlow,
    private readonly readModel: PaymentsReadModel,
    private readonly registry: ClockDrivenWorkRegistry,
    private readonly clock: EnvironmentClock,
    private readonly realClock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly runner: ProjectionRunner,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
    // Collection runs after booking, asynchronously: a backlog that grows (a month-end, a slow gateway) shows here.
    this.metrics.gauge('payment_collections_due', 'Collection tries due and not yet made (all environments): the backlog.', [], async (gauge) =>
      gauge.set(await this.readModel.collectionsDueCount(this.realClock.base.now(), this.config.testClocks)),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.roles.worker) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /**
   * An advance: every try of the environment due at `now`, each looked at once, before the advance answers. The
   * invoices the billing engine booked in this advance start their collections in a reactor, listed by the read
   * model: both are caught up first, so those invoices are tried in this advance, at its time (a later advance
   * would try them at its own). After the tries, the settlements of their payments (a reactor) and the invoices'
   * read model: when the advance answers, an invoice its first try paid reads settled.
   */
  catchUp(environmentId: string, now: Date): Promise<void> {
    return outsideUnitOfWork(async () => {
      // A try the worker has half made (its payment recorded, its outcome not yet) is finished first: this pass would
      // skip it, and the advance would answer before it (issue 41 #3). One the worker began meanwhile, likewise.
      await this.workerPasses.ended(environmentId);
      await this.caughtUp(COLLECTION_REACTOR, PAYMENTS_PROJECTION, PAYMENT_SETTLEMENTS_REACTOR);
      for (let after: CollectionDue | null = null; ;) {
        const page = await this.collectPage(environmentId, now, after);
        if (page.length < BATCH) break;
        after = page[page.length - 1];
      }
      await this.workerPasses.ended(environmentId);
      await this.caughtUp(PAYMENT_SETTLEMENTS_REACTOR, INVOICING_PROJECTION);
    });
  }

  /**
   * Waits for each subscriber to process what was committed before: a large advance (a month-end's bookings)
   * may keep one busy past the read-model timeout, so a timeout is waited again, up to CATCH_UP_WAITS times.
   */
  private async caughtUp(...subscribers: string[]): Promise<void> {
    for (const name of subscribers) {
      for (let waited = 0; ; waited += 1) {
        try {
          await this.runner.catchUp(name);
          break;
        } catch (error) {
          if (!(error instanceof ReadModelTimeoutError) || waited >= CATCH_UP_WAITS) throw error;
        }
      }
    }
  }

  /** A worker run: the oldest page of due tries of each environment in turn, so no environment's backlog holds up the others. */
  private async runDue(): Promise<void> {
    try {
      const environments = await this.readModel.environmentsWithCollections(this.realClock.base.now(), this.config.testClocks);
      // A payment that succeeded settles its invoice in a reactor: that settlement is on the invoice before a try is considered.
      if (environments.length > 0) await this.caughtUp(PAYMENT_SETTLEMENTS_REACTOR);
      for (const environmentId of environments) {
        const now = await this.clock.now(environmentId);
        await this.workerPasses.run(environmentId, () => outsideUnitOfWork(() => this.collectPage(environmentId, now, null)));
      }
    } catch (error) {
      this.logger.error({ msg: 'collection run failed; retried in the next run', error: (error as Error).message });
    }
  }

  /** Makes the page of tries due after `after`; a try whose payment is pending is not listed until it has an outcome. Answers the page. */
  private async collectPage(environmentId: string, now: Date, after: CollectionDue | null): Promise<CollectionDue[]> {
    const page = await this.readModel.collectionsDue(environmentId, now, { after, limit: BATCH });
    for (const { invoiceId } of page) {
      try {
        await this.collect(environmentId, invoiceId, now);
      } catch (error) {
        // Another process collecting the same invoice moved its stream first: expected, and it carries the try on.
        if (error instanceof StreamVersionConflictError) this.logger.debug({ msg: 'another process recorded this collection first', environmentId, invoiceId });
        else this.logger.error({ msg: 'a collection try failed; retried in the next run', environmentId, invoiceId, error: (error as Error).message });
      }
    }
    return page;
  }

  private async collect(environmentId: string, invoiceId: string, now: Date): Promise<void> {
    const context: CommandContext = {
      meta: { now, newId: randomUUID },
      metadata: { actor: 'system:payments', requestId: null, correlationId: randomUUID(), causationId: null },
    };
    const stream = collectionStream(environmentId, invoiceId);
    let { state } = await this.commands.load(stream, collectionEvolver);
    if (await this.stopped(environmentId, state, context)) return;
    if (state.status === 'due') {
      try {
        ({ state } = await this.commands.handle(
          stream,
          collectionEvolver,
          (current) => decideStartAttempt({ paymentId: randomUUID() }, current, context.meta),
          context,
        ));
      } catch (error) {
        if (error instanceof StreamVersionConflictError || (error instanceof ConflictError && error.code === 'collection-not-due')) return;
        throw error;
      }
    }
    if (state.status !== 'attempting') return;
    const outcome = await this.attempt(environmentId, state, context);
    if (outcome === null) return;
    // Read after the try: a failure because (or while) the invoice was settled otherwise stops the collection instead.
    const invoice = await this.invoice(environmentId, invoiceId);
    await this.commands.handle(stream, collectionEvolver, (current) => decideRecordAttempt(outcome, current, context.meta, invoice), context);
  }

  /**
   * Stops the collection when its invoice has nothing left to pay, or was
   * marked uncollectible: the stop reactor does so once it sees the invoice's
   * event, and this check at each try, on the invoice's own stream, covers the
   * moments before it has (and a collection started after the invoice was voided).
   */
  private async stopped(environmentId: string, state: CollectionState, context: CommandContext): Promise<boolean> {
    if (state.status !== 'due' && state.status !== 'attempting') return false;
    const invoice = await this.invoice(environmentId, state.invoiceId);
    if (decideStopCollection(invoice, state, context.meta).length === 0) return false;
    await this.commands.handle(
      collectionStream(environmentId, state.invoiceId),
      collectionEvolver,
      (current) => decideStopCollection(invoice, current, context.meta),
      context,
      { conflicts: { retries: 2 } },
    );
    return true;
  }

  private async invoice(environmentId: string, invoiceId: string): Promise<CollectedInvoice | null> {
    const { state } = await this.commands.load(invoiceStream(environmentId, invoiceId), invoiceEvolver);
    return state.status === 'none' ? null : state;
  }

  /** The claimed try's payment: made now, or found made; null while its outcome is unknown. */
  private async attempt(environmentId: string, collection: Collection, context: CommandContext): Promise<AttemptOutcome | null> {
    const paymentId = collection.paymentId!;
    const existing = (await this.commands.load(paymentStream(environmentId, paymentId), paymentEvolver)).state;
    let payment = existing.status === 'none' ? null : existing;
    if (payment === null) {
      try {
        payment = (
          await this.flow.pay(
            environmentId,
            {
              invoiceId: collection.invoiceId,
              provider: collection.provider,
              token: collection.token,
              attempt: collection.attempts,
              paymentId,
              offSession: true,
            },
            context,
          )
        ).state;
      } catch (error) {
        // Another payment of the invoice is under way (the API, the hosted page) that the read model did not show yet:
        // no charge and no failure; the claimed try waits, left out of the work query, until that payment has its outcome.
        if (error instanceof ConflictError && error.code === 'payment-pending') return null;
        // Refused before any charge (provider disabled, invoice no longer payable): a failed try, not retried
        // (one whose invoice has nothing left to pay stops the collection instead: decideRecordAttempt).
        if (!(error instanceof DomainError)) throw error;
        return { status: 'failed', paymentId, failureCode: error.code, retryable: false };
      }
    }
    if (payment.status === 'succeeded') return { status: 'succeeded', paymentId };
    if (payment.status === 'failed') return { status: 'failed', paymentId, failureCode: payment.failureCode, retryable: payment.retryable === true };
    return null;
  }
}
