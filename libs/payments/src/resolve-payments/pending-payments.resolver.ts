import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CommandContext, CommandPath } from '@billing/event-store';
import { APP_CONFIG, AppConfig, ScopedClock, WorkerLoop } from '@billing/platform';
import { Payment, paymentEvolver, pendingRefunds } from '../domain';
import { PaymentFlow } from '../payment-flow';
import { PaymentsReadModel } from '../read-model/payments.read-model';
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
 * under way when its payment is looked up.
 */
@Injectable()
export class PendingPaymentsResolver implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PendingPayments');
  private readonly loop = new WorkerLoop(POLL_MS, () => this.resolvePending());

  constructor(
    private readonly commands: CommandPath,
    private readonly readModel: PaymentsReadModel,
    private readonly flow: PaymentFlow,
    private readonly clock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.roles.worker) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** Resolves what is pending for longer than the configured wait (payments, then refunds); answers how many payments it looked at. */
  async resolvePending(): Promise<number> {
    // Gateway calls run on real time, whatever an environment's test clock says.
    const cutoff = new Date(this.clock.base.now().getTime() - this.config.paymentsResolveAfterMs);
    const pending = await this.readModel.pendingSince(cutoff, BATCH);
    for (const { environmentId, id } of pending) {
      await this.resolving(environmentId, id, async (payment, context) => {
        if (payment.status === 'pending') await this.flow.resolve(environmentId, payment, context);
      });
    }
    const refunding = await this.readModel.refundPendingSince(cutoff, BATCH);
    for (const { environmentId, id } of refunding) {
      await this.resolving(environmentId, id, async (payment, context) => {
        for (const refund of pendingRefunds(payment)) {
          if (Date.parse(refund.createdAt) < cutoff.getTime()) await this.flow.resolveRefund(environmentId, payment, refund, context);
        }
      });
    }
    return pending.length + refunding.length;
  }

  /** Runs one payment's lookups on its current state; a failure is logged and retried in the next run, never stopping the others. */
  private async resolving(environmentId: string, id: string, work: (payment: Payment, context: CommandContext) => Promise<void>): Promise<void> {
    try {
      const { state } = await this.commands.load(paymentStream(environmentId, id), paymentEvolver);
      if (state.status === 'none') return;
      const context: CommandContext = {
        meta: { now: this.clock.base.now(), newId: randomUUID },
        metadata: { actor: 'system:payments', requestId: null, correlationId: randomUUID(), causationId: null },
      };
      await work(state, context);
    } catch (error) {
      this.logger.error({ msg: 'resolving a pending payment or refund failed; retried in the next run', environmentId, paymentId: id, error: (error as Error).message });
    }
  }
}
