import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BatchedLookup, CommandPath, EventStore, queryRows, RequestAnswer, RequestAnsweredBeforeError } from '@billing/event-store';
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

/** A stored answer as its lookup reads it, with the scope it answers. */
interface StoredAnswerRow {
  readonly environment_id: string;
  readonly subject: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly transaction_id: string | null;
}

/**
 * Runs a command at most once per key. The request's stored answer is looked
 * up first (a replay, or a 422 for another request with the key); else the
 * command runs in a unit of work (CommandPath.answered) whose answer commits
 * with its events in one statement (or one transaction), or neither does: a
 * key never exists without its events, nor events without their key, across
 * processes and crashes. Two requests with one key at once: in one process
 * the second is told so at once (409 in flight); across processes both may
 * decide, but the one whose answer is stored second commits nothing and
 * answers the first one's as its replay. The read models are awaited after
 * the commit.
 * A key is kept for the retention in real time (the base clock), whatever the
 * environment's test clock says: a client's retries run in real time, so
 * advancing an environment's clock must not forget a key (and run its command
 * twice), nor a clock years ahead keep one for years.
 */
@Injectable()
export class IdempotencyStore {
  /** The base clock: retention is real time. */
  private readonly clock: Clock;
  /** The keys of this process's requests that are running now. */
  private readonly running = new Set<string>();
  /** Every keyed request looks its key up first: concurrent ones share a statement. */
  private readonly storedAnswers = new BatchedLookup<IdempotencyScope, StoredAnswerRow>(
    (scopes) =>
      queryRows<StoredAnswerRow>(
        this.dataSource.manager,
        `select a.environment_id, a.subject, a.key, a.fingerprint, a.status, a.headers, a.body, a.transaction_id::text
           from unnest($1::uuid[], $2::text[], $3::text[]) as s(environment_id, subject, key)
           join idempotency_keys a on a.environment_id = s.environment_id and a.subject = s.subject and a.key = s.key
          where a.expires_at > $4`,
        [scopes.map((scope) => scope.environmentId), scopes.map((scope) => scope.subject), scopes.map((scope) => scope.key), this.clock.now()],
      ),
    {
      key: (scope) => JSON.stringify([scope.environmentId, scope.subject, scope.key]),
      row: (row) => JSON.stringify([row.environment_id, row.subject, row.key]),
    },
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly commands: CommandPath,
    private readonly eventStore: EventStore,
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
    const running = `${scope.environmentId}\n${scope.subject}\n${scope.key}`;
    if (this.running.has(running)) throw inFlight();
    this.running.add(running);
    try {
      const stored = await this.stored(scope, request);
      if (stored) return { response: stored, replayed: true };
      return await this.run(scope, request, execute, keptFailure);
    } finally {
      this.running.delete(running);
    }
  }

  private async run(
    scope: IdempotencyScope,
    request: IdempotentRequest,
    execute: () => Promise<StoredResponse>,
    keptFailure: KeptFailure,
  ): Promise<IdempotentOutcome> {
    try {
      const answer = await this.commands.answered(async () => this.answerOf(scope, request, await execute()));
      return { response: responseOf(answer), replayed: false };
    } catch (error) {
      if (error instanceof RequestAnsweredBeforeError) return this.replayOfStored(scope, request);
      const response = keptFailure(error);
      if (!response) throw error;
      // Nothing of the command was committed: its failure is stored alone.
      return this.keep(scope, request, response);
    }
  }

  /**
   * For a command that commits its own steps (a payment: recorded, charged at
   * a gateway, settled) and so cannot share the key's transaction: the stored
   * response of the key, if any (another request with it: 422), read before
   * the command runs. The command makes its ids from the key
   * (`idFromIdempotencyKey`), so running it again finds its work done.
   */
  async stored(scope: IdempotencyScope, request: IdempotentRequest): Promise<StoredResponse | null> {
    const found = await this.storedAnswers.load(scope);
    if (!found) return null;
    if (found.fingerprint !== request.fingerprint) throw reused();
    // Read-your-writes for a replay too: the request's effects are readable when its answer is given again.
    await this.commands.awaitAnswered(found.transaction_id);
    return { status: found.status, headers: found.headers, body: found.body };
  }

  /**
   * Stores the response of such a command after it ran. A live row already
   * there is a concurrent twin's, stored first: it is kept, and this request
   * answers it as a replay, so one answer is the one that executed and every
   * other is its replay.
   */
  async keep(scope: IdempotencyScope, request: IdempotentRequest, response: StoredResponse): Promise<IdempotentOutcome> {
    if (await this.eventStore.recordAnswer(this.answerOf(scope, request, response))) return { response, replayed: false };
    return this.replayOfStored(scope, request);
  }

  /** The key's stored response as a replay; in flight if it is gone again (expired and purged meanwhile). */
  private async replayOfStored(scope: IdempotencyScope, request: IdempotentRequest): Promise<IdempotentOutcome> {
    const stored = await this.stored(scope, request);
    if (!stored) throw inFlight();
    return { response: stored, replayed: true };
  }

  /** The key's row with this response, kept for the retention from now. */
  private answerOf(scope: IdempotencyScope, request: IdempotentRequest, response: StoredResponse): RequestAnswer {
    const now = this.clock.now();
    return {
      ...scope,
      ...request,
      ...response,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.config.idempotencyRetentionHours * 3_600_000),
    };
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

function responseOf({ status, headers, body }: RequestAnswer): StoredResponse {
  return { status, headers, body };
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
