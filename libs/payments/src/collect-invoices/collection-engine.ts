import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CommandContext, CommandPath, outsideUnitOfWork, StreamVersionConflictError } from '@billing/event-store';
import { APP_CONFIG, AppConfig, ClockDrivenWork, ClockDrivenWorkRegistry, EnvironmentClock, Metrics, ScopedClock, WorkerLoop } from '@billing/platform';
import { ConflictError, DomainError } from '@billing/shared-kernel';
import { invoiceEvolver, invoiceStream } from '@billing/invoicing';
import {
  AttemptOutcome,
  Collection,
  collectionEvolver,
  collectionStopReason,
  decideRecordAttempt,
  decideStartAttempt,
  decideStopCollection,
  paymentEvolver,
} from '../domain';
import { PaymentFlow } from '../payment-flow';
import { CollectionDue, PaymentsReadModel } from '../read-model/payments.read-model';
import { collectionStream, paymentStream } from '../streams';

const POLL_MS = 1_000;
const BATCH = 100;

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

  constructor(
    private readonly commands: CommandPath,
    private readonly flow: PaymentFlow,
    private readonly readModel: PaymentsReadModel,
    private readonly registry: ClockDrivenWorkRegistry,
    private readonly clock: EnvironmentClock,
    private readonly realClock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
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

  /** An advance: every try of the environment due at `now`, each looked at once, before the advance answers. */
  catchUp(environmentId: string, now: Date): Promise<void> {
    return outsideUnitOfWork(async () => {
      for (let after: CollectionDue | null = null; ;) {
        const page = await this.collectPage(environmentId, now, after);
        if (page.length < BATCH) return;
        after = page[page.length - 1];
      }
    });
  }

  /** A worker run: the oldest page of due tries of each environment in turn, so no environment's backlog holds up the others. */
  private async runDue(): Promise<void> {
    try {
      for (const environmentId of await this.readModel.environmentsWithCollections(this.realClock.base.now(), this.config.testClocks)) {
        const now = await this.clock.now(environmentId);
        await outsideUnitOfWork(() => this.collectPage(environmentId, now, null));
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
    if ((state.status === 'due' || state.status === 'attempting') && (await this.stopped(environmentId, invoiceId, context))) return;
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
    await this.commands.handle(stream, collectionEvolver, (current) => decideRecordAttempt(outcome, current, context.meta), context);
  }

  /**
   * Stops the collection when its invoice was voided or marked uncollectible:
   * the stop reactor does so once it sees the invoice's event, and this check
   * at each try, on the invoice's own stream, covers the moments before it
   * has (and a collection started after the invoice was voided).
   */
  private async stopped(environmentId: string, invoiceId: string, context: CommandContext): Promise<boolean> {
    const invoice = (await this.commands.load(invoiceStream(environmentId, invoiceId), invoiceEvolver)).state;
    const reason = invoice.status === 'none' ? null : collectionStopReason(invoice);
    if (reason === null) return false;
    await this.commands.handle(
      collectionStream(environmentId, invoiceId),
      collectionEvolver,
      (current) => decideStopCollection({ reason }, current, context.meta),
      context,
      { conflicts: { retries: 2 } },
    );
    return true;
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
        // Refused before any charge (provider disabled, invoice no longer payable): a failed try, not retried.
        if (!(error instanceof DomainError)) throw error;
        return { status: 'failed', paymentId, failureCode: error.code, retryable: false };
      }
    }
    if (payment.status === 'succeeded') return { status: 'succeeded', paymentId };
    if (payment.status === 'failed') return { status: 'failed', paymentId, failureCode: payment.failureCode, retryable: payment.retryable === true };
    return null;
  }
}
