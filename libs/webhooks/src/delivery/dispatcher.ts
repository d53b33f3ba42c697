import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CommandPath, queryRows } from '@billing/event-store';
import { Clock, FaultPoint, killIfArmed, NotifiedRounds } from '@billing/platform';
import { decideDisable, nextAttemptAt, webhookSubscriptionEvolver } from '../domain';
import { WebhooksConfig } from '../config/webhooks-config';
import { SignatureKeyVault } from '../key-vault';
import { DELIVERIES_CHANNEL } from '../projections/fan-out.reactor';
import { webhookSubscriptionStream } from '../streams';
import { ASYNC_COMMIT } from './async-commit';
import { AttemptRecorder } from './attempt-recorder';
import { WebhookSender } from './http-sender';
import { buildNotification } from './notification';
import { parseRetryAfter } from './retry-after';

/** A delivery this dispatcher holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  readonly environmentId: string;
  readonly id: string;
  readonly subscriptionId: string;
  readonly notificationId: string;
  readonly failures: number;
  /** When its event was recorded, on the real clock: the retry window counts from here. */
  readonly recordedAt: Date;
  readonly deadlineAt: Date;
  readonly redelivery: boolean;
  readonly leaseToken: string;
  readonly subscription: { status: string; url: string; version: string; encryptedSignatureKey: string | null } | null;
  readonly notification: { type: string; occurredAt: Date; data: unknown };
}

export type DeliveryOutcome = 'delivered' | 'pending' | 'discarded' | 'refused' | 'disabled' | 'cancelled' | 'lease-lost';

interface ClaimRow {
  environment_id: string;
  id: string;
  subscription_id: string;
  notification_id: string;
  failures: number;
  created_at: Date;
  deadline_at: Date;
  redelivery: boolean;
  subscription_status: string | null;
  url: string | null;
  version: string | null;
  encrypted_signature_key: string | null;
  type: string;
  occurred_at: Date;
  data: unknown;
}

export interface DispatcherDependencies {
  readonly dataSource: DataSource;
  readonly clock: Clock;
  readonly commands: CommandPath;
  readonly vault: SignatureKeyVault;
  /** For LISTEN; null: poll only. */
  readonly databaseUrl: string | null;
  /** Counts each delivery's outcome (webhook_deliveries_total). */
  readonly outcomes?: { inc(labels: { outcome: DeliveryOutcome }): void };
  /** A crash test's kill point (FAULT_KILL_AT); absent in service. */
  readonly faultKillAt?: FaultPoint | null;
}

const GONE_REASON = 'receiver answered 410 Gone';

/**
 * Sends queued deliveries. Durable and at-least-once:
 *
 * 1. claim: one statement leases due rows (`FOR UPDATE SKIP LOCKED`, so any
 *    number of dispatchers share the queue) and commits;
 * 2. the HTTP attempt runs with no transaction open;
 * 3. the attempt and the new state are recorded (AttemptRecorder: the
 *    attempts that finish together in one statement), only if the lease is still
 *    ours. A dispatcher that dies between 1 and 3 loses nothing: when the
 *    lease expires the row is due again.
 *
 * Scheduling compares with the injected Clock's time, passed as a parameter
 * (never SQL now()), so tests drive backoff and the 72-hour cut-off. That
 * clock is the real (base) one, and every due time, lease and cut-off is real
 * time counted from when the event was recorded: a notification is a
 * real-world side effect, sent now even when its environment's test clock is
 * years ahead (its `occurredAt`, in the payload, stays the environment's).
 */
export class WebhookDispatcher {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly inFlight = new Set<Promise<void>>();
  /** The last round stopped with every slot taken, so due deliveries may be waiting: a finished send looks again. */
  private backlog = false;
  private readonly rounds: NotifiedRounds;
  private readonly recorder: AttemptRecorder;

  constructor(
    private readonly deps: DispatcherDependencies,
    private readonly config: WebhooksConfig,
    readonly sender: WebhookSender = new WebhookSender(config),
  ) {
    this.recorder = new AttemptRecorder(deps.dataSource, () => this.inFlight.size);
    this.rounds = new NotifiedRounds({
      name: 'webhook',
      channel: DELIVERIES_CHANNEL,
      databaseUrl: deps.databaseUrl,
      pollIntervalMs: config.pollIntervalMs,
      round: () => this.fill(),
    });
  }

  get isRunning(): boolean {
    return this.rounds.isRunning;
  }

  /** Starts sending: woken by NOTIFY and by this process's fan-out commits, with a poll as the fallback. */
  start(): Promise<void> {
    return this.rounds.start();
  }

  /** Stops claiming, then waits for the sends in flight to be recorded. */
  async stop(): Promise<void> {
    const wasRunning = await this.rounds.stop();
    await Promise.all([...this.inFlight]);
    if (wasRunning) this.sender.close();
  }

  /** Looks for due deliveries now (coalesced when a round is already running). */
  wake(): void {
    this.rounds.wake();
  }

  /** One round for tests and tools: claims a batch of due deliveries, sends them, records them. */
  async runOnce(limit = this.config.batchSize): Promise<DeliveryOutcome[]> {
    const claimed = await this.claim(limit);
    return Promise.all(claimed.map((delivery) => this.deliver(delivery)));
  }

  /** Leases up to `limit` due deliveries (committed before returning). */
  async claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = this.deps.clock.now();
    const leaseToken = randomUUID();
    const rows = await queryRows<ClaimRow>(
      this.deps.dataSource.manager,
      `with claimed as (
         update webhook_deliveries d set lease_expires_at = $2, lease_token = $3
          where (d.environment_id, d.id) in (
            select environment_id, id from webhook_deliveries, ${ASYNC_COMMIT}
             where status = 'pending' and next_attempt_at <= $1
               and (lease_expires_at is null or lease_expires_at <= $1)
             order by next_attempt_at
             limit $4
             for update of webhook_deliveries skip locked)
         returning d.environment_id, d.id, d.subscription_id, d.notification_id, d.failures, d.created_at, d.deadline_at, d.redelivery)
       select c.*, s.status as subscription_status, s.url, s.version, s.encrypted_signature_key,
              n.type, n.occurred_at, n.data
         from claimed c
         join webhook_notifications n on n.environment_id = c.environment_id and n.id = c.notification_id
         left join webhook_subscriptions s on s.environment_id = c.environment_id and s.id = c.subscription_id`,
      [now, new Date(now.getTime() + this.config.leaseMs), leaseToken, limit],
    );
    return rows.map((row) => ({
      environmentId: row.environment_id,
      id: row.id,
      subscriptionId: row.subscription_id,
      notificationId: row.notification_id,
      failures: row.failures,
      recordedAt: row.created_at,
      deadlineAt: row.deadline_at,
      redelivery: row.redelivery,
      leaseToken,
      subscription:
        row.subscription_status && row.url && row.version
          ? { status: row.subscription_status, url: row.url, version: row.version, encryptedSignatureKey: row.encrypted_signature_key }
          : null,
      notification: { type: row.type, occurredAt: row.occurred_at, data: row.data },
    }));
  }

  /** Sends one claimed delivery (no transaction open) and records the attempt, the new state and the outcome's count. */
  async deliver(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const outcome = await this.attempt(delivery);
    this.deps.outcomes?.inc({ outcome });
    return outcome;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const { subscription } = delivery;
    if (!subscription || subscription.status !== 'active' || !subscription.encryptedSignatureKey) {
      const status = subscription?.status === 'disabled' ? 'disabled' : 'cancelled';
      return (await this.settleWithoutAttempt(delivery, status)) ? status : 'lease-lost';
    }
    const attemptedAt = this.deps.clock.now();
    if (attemptedAt > delivery.deadlineAt && !delivery.redelivery) {
      return (await this.settleWithoutAttempt(delivery, 'discarded')) ? 'discarded' : 'lease-lost';
    }
    const signatureKey = this.deps.vault.decrypt(delivery.environmentId, delivery.subscriptionId, subscription.encryptedSignatureKey);
    const outgoing = buildNotification(
      { id: delivery.notificationId, environmentId: delivery.environmentId, ...delivery.notification },
      subscription.version,
      signatureKey,
      attemptedAt,
    );
    const result = await this.sender.send({ url: subscription.url, ...outgoing });
    const now = this.deps.clock.now();
    let outcome: DeliveryOutcome;
    let nextAt: Date | null = null;
    let failures = delivery.failures;
    if (result.ok) {
      outcome = 'delivered';
    } else if (result.statusCode === 410) {
      outcome = 'disabled';
    } else if (result.refused) {
      // Refused by the sender's policy (typically: the host resolves only to forbidden addresses). Nothing was
      // sent and the same attempt would be refused again, so it fails now instead of retrying for 72 hours.
      // The subscription stays active: a name may resolve differently later, and a later notification (or a
      // manual redelivery of this one) is checked afresh.
      failures += 1;
      outcome = 'refused';
      this.logger.warn({
        msg: 'webhook delivery refused by the address policy; not retried',
        deliveryId: delivery.id,
        subscriptionId: delivery.subscriptionId,
        reason: result.error,
      });
    } else {
      failures += 1;
      nextAt = nextAttemptAt({
        recordedAt: delivery.recordedAt,
        attempt: failures,
        now,
        random: Math.random(),
        retryAfterSeconds: parseRetryAfter(result.retryAfter, now),
      });
      outcome = nextAt ? 'pending' : 'discarded';
    }
    if (outcome === 'disabled') {
      // The subscription's disabling (an event) before the attempt's row: a crash between the two leaves the delivery
      // leased, and its next claim finds the subscription disabled and settles it so. Recorded the other way round, a
      // crash left the delivery `disabled` and the subscription active, sending on (issue 41 #10).
      await this.disableSubscription(delivery, subscription.url);
      killIfArmed(this.deps.faultKillAt ?? null, 'webhook-disabled');
    }
    const kept = await this.recorder.record({
      environmentId: delivery.environmentId,
      deliveryId: delivery.id,
      leaseToken: delivery.leaseToken,
      attemptedAt,
      ok: result.ok,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      status: outcome,
      failures,
      nextAttemptAt: nextAt,
      deliveredAt: result.ok ? now : null,
    });
    if (!kept) {
      this.logger.warn({ msg: 'webhook delivery lease lost before the attempt was recorded', deliveryId: delivery.id });
      return 'lease-lost';
    }
    return outcome;
  }

  private async settleWithoutAttempt(delivery: ClaimedDelivery, status: 'disabled' | 'cancelled' | 'discarded'): Promise<boolean> {
    const rows = await queryRows(
      this.deps.dataSource.manager,
      `update webhook_deliveries set status = $4, next_attempt_at = null, lease_expires_at = null, lease_token = null,
              last_error = coalesce($5, last_error)
        where environment_id = $1 and id = $2 and lease_token = $3
        returning 1`,
      [delivery.environmentId, delivery.id, delivery.leaseToken, status, status === 'discarded' ? 'retry window of 72 hours after the event has passed' : null],
    );
    return rows.length > 0;
  }

  /** A 410 Gone: the receiver asks us to stop. Appends WebhookDisabled through the decider (idempotent, so a conflict is decided again). */
  private async disableSubscription(delivery: ClaimedDelivery, url: string): Promise<void> {
    const { events } = await this.deps.commands.handle(
      webhookSubscriptionStream(delivery.environmentId, delivery.subscriptionId),
      webhookSubscriptionEvolver,
      (state) => decideDisable({ url, reason: GONE_REASON }, state),
      {
        meta: { now: this.deps.clock.now(), newId: randomUUID },
        metadata: { actor: 'system:webhooks-dispatcher', requestId: null, correlationId: delivery.id, causationId: delivery.notificationId },
      },
      { conflicts: { retries: 1 } },
    );
    if (events.length > 0) this.logger.log({ msg: 'webhook subscription disabled: receiver answered 410', subscriptionId: delivery.subscriptionId });
  }

  /** Keeps up to batchSize sends in flight; while a backlog waits, each finished send frees a slot and looks again. */
  private async fill(): Promise<void> {
    try {
      while (this.rounds.isRunning) {
        const free = this.config.batchSize - this.inFlight.size;
        if (free <= 0) {
          this.backlog = true;
          return;
        }
        const claimed = await this.claim(free);
        for (const delivery of claimed) {
          const task: Promise<void> = this.deliver(delivery)
            .then(
              () => undefined,
              (error: unknown) =>
                this.logger.error({
                  msg: 'webhook delivery failed unexpectedly; retried when its lease expires',
                  deliveryId: delivery.id,
                  error: String(error),
                }),
            )
            .finally(() => {
              this.inFlight.delete(task);
              // Without a backlog nothing due was left behind: new deliveries wake the dispatcher themselves
              // (NOTIFY, the commit hook) and retries come due for the poll, so no claim per finished send.
              if (this.backlog) this.wake();
            });
          this.inFlight.add(task);
        }
        if (claimed.length < free) {
          this.backlog = false;
          return;
        }
      }
    } catch (error) {
      this.logger.error({ msg: 'webhook dispatcher round failed; will retry', error: String(error) });
    }
  }
}
