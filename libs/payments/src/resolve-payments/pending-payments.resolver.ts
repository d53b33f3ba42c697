import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CommandContext, CommandPath, outsideUnitOfWork } from '@billing/event-store';
import { APP_CONFIG, AppConfig, ClockDrivenWork, ClockDrivenWorkRegistry, EnvironmentClock, ScopedClock, WorkerLoop } from '@billing/platform';
import { isDueBy } from '@billing/shared-kernel';
import { isOpenPayment, Payment, paymentEvolver, pendingRefunds } from '../domain';
import { PaymentFlow } from '../payment-flow';
import { AwaitingLookup, PaymentsReadModel } from '../read-model/payments.read-model';
import { paymentStream } from '../streams';

const POLL_MS = 1_000;
const BATCH = 100;

/**
 * In worker processes: payments still pending PAYMENTS_RESOLVE_AFTER_MS after
 * they were recorded (a gateway timeout, or a process that died between the
 * charge and recording its outcome) are resolved by asking the gateway what
 * became of the charge with their reference. Never a second charge: a charge
 * the gateway does not know was never made, and the payment fails.
 * Refunds still pending after the same wait are looked up the same way: a
 * refund the gateway does not know was never made, and it fails (its amount
 * is refundable again).
 * The wait must exceed any gateway call's time limit, so no call is still
 * under way when its payment is looked up. Gateway calls run in real time, so
 * the wait counts in real time from when the payment (or refund) was recorded,
 * whatever the environment's test clock says; advancing an environment's
 * clock past `createdAt` + the wait resolves it too (the advance's catch-up
 * does, before it answers). What is recorded is dated in the environment's
 * time, as everything it writes.
 */
@Injectable()
export class PendingPaymentsResolver implements ClockDrivenWork, OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  readonly name = 'pending payment lookups';
  private readonly logger = new Logger('PendingPayments');
  private readonly loop = new WorkerLoop(POLL_MS, () => this.resolvePending());
  /** Where the worker's next run takes up (null: from the oldest). */
  private after: AwaitingLookup | null = null;

  constructor(
    private readonly commands: CommandPath,
    private readonly readModel: PaymentsReadModel,
    private readonly flow: PaymentFlow,
    private readonly clock: ScopedClock,
    private readonly environmentClock: EnvironmentClock,
    private readonly registry: ClockDrivenWorkRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  onApplicationBootstrap(): void {
    if (this.config.roles.worker) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** An advance: the environment's payments and refunds whose wait is over by real time or by its new time, every one of them. */
  catchUp(environmentId: string): Promise<void> {
    return outsideUnitOfWork(async () => {
      for (let after: AwaitingLookup | null = null; ;) {
        const page = await this.lookUp({ after, limit: BATCH, environmentId });
        if (page.length < BATCH) return;
        after = page[page.length - 1];
      }
    });
  }

  /**
   * One run of the worker: the next batch of what waited long enough, in
   * every environment, taking up after the previous run's last one (from
   * the start again once all were seen). Lookups that stay unknown (a gateway
   * that cannot tell yet) thus never keep the others from their turn.
   * Answers how many payments it looked at.
   */
  async resolvePending(): Promise<number> {
    const page = await this.lookUp({ after: this.after, limit: BATCH });
    this.after = page.length < BATCH ? null : page[page.length - 1];
    return page.length;
  }

  /** Looks up a page of payments (then their refunds) whose wait is over, and answers the page. */
  private async lookUp(page: { after: AwaitingLookup | null; limit: number; environmentId?: string }): Promise<AwaitingLookup[]> {
    const awaiting = await this.readModel.awaitingLookup(
      { realNow: this.clock.base.now(), ms: this.config.paymentsResolveAfterMs, testClocks: this.config.testClocks },
      page,
    );
    for (const { environmentId, id, realDue, environmentCutoff } of awaiting) {
      // Due once the wait is over in the environment's time: an advance to exactly createdAt + the wait resolves it too.
      const due = (createdAt: string) => realDue || isDueBy(createdAt, environmentCutoff);
      await this.resolving(environmentId, id, async (payment, context) => {
        if (isOpenPayment(payment) && due(payment.createdAt)) await this.flow.resolve(environmentId, payment, context);
      });
      await this.resolving(environmentId, id, async (payment, context) => {
        for (const refund of pendingRefunds(payment)) {
          if (due(refund.createdAt)) await this.flow.resolveRefund(environmentId, payment, refund, context);
        }
      });
    }
    return awaiting;
  }

  /** Runs one payment's lookups on its current state; a failure is logged and retried in the next run, never stopping the others. */
  private async resolving(environmentId: string, id: string, work: (payment: Payment, context: CommandContext) => Promise<void>): Promise<void> {
    try {
      const { state } = await this.commands.load(paymentStream(environmentId, id), paymentEvolver);
      if (state.status === 'none') return;
      const context: CommandContext = {
        // What it records is dated in the environment's time, like everything else the environment writes.
        meta: { now: await this.environmentClock.now(environmentId), newId: randomUUID },
        metadata: { actor: 'system:payments', requestId: null, correlationId: randomUUID(), causationId: null },
      };
      await work(state, context);
    } catch (error) {
      this.logger.error({
        msg: 'resolving a pending payment or refund failed; retried in the next run',
        environmentId,
        paymentId: id,
        error: (error as Error).message,
      });
    }
  }
}
