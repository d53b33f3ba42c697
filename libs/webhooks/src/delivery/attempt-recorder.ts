import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { ASYNC_COMMIT } from './async-commit';

/** One finished attempt and the delivery's new state. */
export interface RecordedAttempt {
  readonly environmentId: string;
  readonly deliveryId: string;
  readonly leaseToken: string;
  readonly attemptedAt: Date;
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly status: string;
  readonly failures: number;
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
}

interface Waiting {
  readonly attempt: RecordedAttempt;
  readonly resolve: (kept: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/** How long a finished attempt waits for the other sends in flight before it is recorded without them. */
export const RECORD_GATHER_MS = 5;

/**
 * Records finished attempts: every attempt row, and the delivery's new state
 * only while the lease is still ours. A statement starts once every send in
 * flight has finished (`inFlight`), or RECORD_GATHER_MS after the first
 * attempt waiting, whichever comes first; the attempts that finish while it
 * is on its way go together in the next one. The sends of one claim finish
 * within a few ms of each other, and recorded as they came they took three
 * statements per claim (docs/BENCHMARKS.md, issue 21); the receiver has its
 * notification already, only the bookkeeping waits. One statement is atomic
 * without a transaction of its own, and holds no transaction id across round
 * trips (an open one holds back every projection's snapshot horizon, which
 * the API's writes wait on).
 */
export class AttemptRecorder {
  private waiting: Waiting[] = [];
  private flushing: Promise<void> | null = null;
  private gathering: NodeJS.Timeout | null = null;

  /** `inFlight`: the sends not yet recorded (this attempt's included); none known: each attempt is recorded at once. */
  constructor(
    private readonly dataSource: DataSource,
    private readonly inFlight: () => number = () => 0,
  ) {}

  /** Resolves with true when the delivery's state was updated, false when its lease was lost (the attempt row is kept either way). */
  record(attempt: RecordedAttempt): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ attempt, resolve, reject });
      if (this.flushing) return;
      if (this.waiting.length >= this.inFlight()) this.startFlush();
      else this.gathering ??= setTimeout(() => this.startFlush(), RECORD_GATHER_MS);
    });
  }

  private startFlush(): void {
    if (this.gathering) clearTimeout(this.gathering);
    this.gathering = null;
    this.flushing ??= this.flush().finally(() => (this.flushing = null));
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const kept = await this.write(batch.map((w) => w.attempt));
        for (const w of batch) w.resolve(kept.has(`${w.attempt.environmentId}/${w.attempt.deliveryId}`));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
  }

  private async write(attempts: readonly RecordedAttempt[]): Promise<Set<string>> {
    const column = <Value>(value: (a: RecordedAttempt) => Value) => attempts.map(value);
    const rows = await queryRows<{ environment_id: string; id: string }>(
      this.dataSource.manager,
      `with finished as (
         select f.* from ${ASYNC_COMMIT}, unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[], $6::text[], $7::int[], $8::text[], $9::int[],
                              $10::text[], $11::int[], $12::timestamptz[], $13::timestamptz[])
           as f(environment_id, delivery_id, lease_token, attempt_id, attempted_at, outcome, status_code, error, duration_ms,
                status, failures, next_attempt_at, delivered_at)),
       attempts as (
         insert into webhook_delivery_attempts (environment_id, id, delivery_id, attempted_at, outcome, status_code, error, duration_ms)
         select environment_id, attempt_id, delivery_id, attempted_at, outcome, status_code, error, duration_ms from finished)
       update webhook_deliveries d
          set status = f.status, failures = f.failures, next_attempt_at = f.next_attempt_at, delivered_at = f.delivered_at,
              last_status_code = f.status_code, last_error = f.error, lease_expires_at = null, lease_token = null, redelivery = false
         from finished f
        where d.environment_id = f.environment_id and d.id = f.delivery_id and d.lease_token = f.lease_token
        returning d.environment_id, d.id`,
      [
        column((a) => a.environmentId),
        column((a) => a.deliveryId),
        column((a) => a.leaseToken),
        column(() => randomUUID()),
        column((a) => a.attemptedAt),
        column((a) => (a.ok ? 'delivered' : 'failed')),
        column((a) => a.statusCode),
        column((a) => a.error),
        column((a) => a.durationMs),
        column((a) => a.status),
        column((a) => a.failures),
        column((a) => a.nextAttemptAt),
        column((a) => a.deliveredAt),
      ],
    );
    return new Set(rows.map((row) => `${row.environment_id}/${row.id}`));
  }
}
