import { Inject, Injectable } from '@nestjs/common';
import { escapeLiteral, type PoolClient, type QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import { CommandPath, queryRows, UnitOfWork } from '@billing/event-store';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Clock } from '../http/request-context';
import { ScopedClock } from '../clock/scoped-clock';
import { HttpProblem, StoredResponse } from '../problems/problem';
import { IDEMPOTENCY_KEY_POINTER, IdempotencyScope } from './idempotency-key';

export interface IdempotentRequest {
  readonly method: string;
  readonly path: string;
  readonly fingerprint: string;
}

export interface IdempotentOutcome {
  readonly response: StoredResponse;
  /** True when the response is a stored one: the command did not run now. */
  readonly replayed: boolean;
}

/** A rendered failure to keep with the key, or undefined to release the key (5xx, version conflicts). */
export type KeptFailure = (error: unknown) => StoredResponse | undefined;

const SAVEPOINT = 'idempotent_command';

/**
 * Runs a command at most once per key. One unit of work (one transaction)
 * holds a lock on the key (`pg_try_advisory_xact_lock`: a second request
 * with the key while the first runs is told so at once rather than queued),
 * the command's own statements and the key's row with the response; the read
 * models are awaited after its commit.
 * So the events and the key commit together or not at all, across processes
 * and crashes; the lock goes with the transaction, so a crash releases it.
 * A key is kept for the retention in real time (the base clock), whatever the
 * environment's test clock says: a client's retries run in real time, so
 * advancing an environment's clock must not forget a key (and run its command
 * twice), nor a clock years ahead keep one for years.
 */
@Injectable()
export class IdempotencyStore {
  /** The base clock: retention is real time. */
  private readonly clock: Clock;

  constructor(
    private readonly dataSource: DataSource,
    private readonly commands: CommandPath,
    scopedClock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.clock = scopedClock.base;
  }

  async once(
    scope: IdempotencyScope,
    request: IdempotentRequest,
    execute: () => Promise<StoredResponse>,
    keptFailure: KeptFailure,
  ): Promise<IdempotentOutcome> {
    return this.commands.atomically(async (unit) => {
      const now = this.clock.now();
      // One round trip: the key's lock and its stored response, and the savepoint the command runs after. A
      // response committed between this statement's snapshot and the lock is not seen here; the insert below
      // then finds it, and the command is rolled back and that response answered as the replay it is, so it
      // never runs twice.
      const found = await lockKey(unit, scope, now);
      if (!found.locked) throw inFlight();
      if (found.fingerprint !== null) {
        if (found.fingerprint !== request.fingerprint) throw reused();
        return { response: { status: found.status, headers: found.headers, body: found.body }, replayed: true };
      }
      const writtenBefore = unit.written.length;
      const response = await runOnce(unit, execute, keptFailure);
      if (await this.save(scope, request, response, now)) return { response, replayed: false };
      // Another request with the key committed its answer after this statement's snapshot: the command
      // did not run here after all (rolled back), and this is its replay.
      await rollBackCommand(unit, writtenBefore);
      return this.replayOfStored(scope, request);
    });
  }

  /**
   * For a command that commits its own steps (a payment: recorded, charged at
   * a gateway, settled) and so cannot share the key's transaction: the stored
   * response of the key, if any (another request with it: 422), read before
   * the command runs. The command makes its ids from the key
   * (`idFromIdempotencyKey`), so running it again finds its work done.
   */
  async stored(scope: IdempotencyScope, request: IdempotentRequest): Promise<StoredResponse | null> {
    const [found] = await queryRows<{ fingerprint: string; status: number; headers: Record<string, string>; body: string }>(
      this.dataSource.manager,
      `select fingerprint, status, headers, body from idempotency_keys where environment_id = $1 and subject = $2 and key = $3 and expires_at > $4`,
      [scope.environmentId, scope.subject, scope.key, this.clock.now()],
    );
    if (!found) return null;
    if (found.fingerprint !== request.fingerprint) throw reused();
    return { status: found.status, headers: found.headers, body: found.body };
  }

  /**
   * Stores the response of such a command after it ran. A live row already
   * there is a concurrent twin's, stored first: it is kept, and this request
   * answers it as a replay, so one answer is the one that executed and every
   * other is its replay.
   */
  async keep(scope: IdempotencyScope, request: IdempotentRequest, response: StoredResponse): Promise<IdempotentOutcome> {
    if (await this.save(scope, request, response, this.clock.now())) return { response, replayed: false };
    return this.replayOfStored(scope, request);
  }

  /** The key's stored response as a replay; in flight if it is gone again (expired and purged meanwhile). */
  private async replayOfStored(scope: IdempotencyScope, request: IdempotentRequest): Promise<IdempotentOutcome> {
    const stored = await this.stored(scope, request);
    if (!stored) throw inFlight();
    return { response: stored, replayed: true };
  }

  /** The key's row with its response; false when a live one is there already. */
  private async save(scope: IdempotencyScope, request: IdempotentRequest, response: StoredResponse, now: Date): Promise<boolean> {
    const saved = await queryRows(
      this.dataSource.manager,
      `insert into idempotency_keys (environment_id, subject, key, fingerprint, method, path, status, headers, body, created_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       on conflict (environment_id, subject, key) do update
          set fingerprint = excluded.fingerprint, method = excluded.method, path = excluded.path, status = excluded.status,
              headers = excluded.headers, body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= excluded.created_at
       returning 1`,
      [
        scope.environmentId,
        scope.subject,
        scope.key,
        request.fingerprint,
        request.method,
        request.path,
        response.status,
        JSON.stringify(response.headers),
        response.body,
        now,
        new Date(now.getTime() + this.config.idempotencyRetentionHours * 3_600_000),
      ],
    );
    return saved.length > 0;
  }

  /** Deletes keys past their retention, a batch at a time; answers how many. */
  async purgeExpired(batchSize = 10_000): Promise<number> {
    let purged = 0;
    for (;;) {
      const [, count] = (await this.dataSource.query(
        `delete from idempotency_keys where ctid = any(array(select ctid from idempotency_keys where expires_at <= $1 limit $2))`,
        [this.clock.now(), batchSize],
      )) as [unknown, number];
      purged += count;
      if (count < batchSize) return purged;
    }
  }
}

interface FoundKey {
  locked: boolean;
  fingerprint: string | null;
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Takes the key's lock (`pg_try_advisory_xact_lock`), reads its live stored
 * response if any, and sets the savepoint runOnce rolls back to, in one
 * simple-protocol round trip: the values travel as literals quoted by pg's
 * escapeLiteral. The savepoint comes after the lock, so rolling back to it
 * keeps the lock.
 */
async function lockKey(unit: UnitOfWork, scope: IdempotencyScope, now: Date): Promise<FoundKey> {
  const client = (unit.manager.queryRunner as unknown as { databaseConnection: PoolClient }).databaseConnection;
  const [found] = (await client.query(
    `select pg_try_advisory_xact_lock(hashtextextended(${escapeLiteral(`${scope.environmentId}\n${scope.subject}\n${scope.key}`)}, 0)) as locked,
            k.fingerprint, k.status, k.headers, k.body
       from (select 1) as one
       left join idempotency_keys k on k.environment_id = ${escapeLiteral(scope.environmentId)}::uuid and k.subject = ${escapeLiteral(scope.subject)}
        and k.key = ${escapeLiteral(scope.key)} and k.expires_at > ${escapeLiteral(now.toISOString())}::timestamptz;
     savepoint ${SAVEPOINT}`,
  )) as unknown as [QueryResult<FoundKey>, QueryResult];
  return found.rows[0];
}

/** The command inside the key's transaction (after lockKey's savepoint); a failure it keeps is rolled back to before the command and stored. */
async function runOnce(unit: UnitOfWork, execute: () => Promise<StoredResponse>, keptFailure: KeptFailure): Promise<StoredResponse> {
  const writtenBefore = unit.written.length;
  try {
    return await execute();
  } catch (error) {
    const response = keptFailure(error);
    if (!response) throw error;
    await rollBackCommand(unit, writtenBefore);
    return response;
  }
}

/** Undoes the command's statements (to the savepoint runOnce set) and forgets the streams it wrote. */
async function rollBackCommand(unit: UnitOfWork, writtenBefore: number): Promise<void> {
  await unit.manager.query(`rollback to savepoint ${SAVEPOINT}`);
  unit.written.splice(writtenBefore);
}

function inFlight(): HttpProblem {
  return new HttpProblem(
    409,
    'idempotency-key-in-flight',
    'A request with this Idempotency-Key is still being processed; retry after it completes to receive its response.',
    undefined,
    { 'retry-after': '1' },
  );
}

function reused(): HttpProblem {
  const detail = 'was already used with a different request (method, path or body)';
  return new HttpProblem(422, 'idempotency-key-reused', `This Idempotency-Key ${detail}; use a new key for a new request.`, [
    { pointer: IDEMPOTENCY_KEY_POINTER, detail },
  ]);
}
