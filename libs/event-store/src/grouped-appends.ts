import { StreamVersionConflictError } from './errors';
import { AppendResult, EventMetadata, RequestAnswer, StreamAppend, streamKey, WrittenStream } from './types';
import { outsideUnitOfWork, StagedAppend } from './unit-of-work';

/** What one command (or one keyed request's unit of work) waits to have written. */
interface Pending {
  readonly staged: readonly StagedAppend[];
  /** A keyed request's answer, committed with its appends. */
  readonly answer?: RequestAnswer;
  readonly resolve: (written: readonly WrittenStream[]) => void;
  readonly reject: (error: unknown) => void;
}

/** Fewer than this many waiting writes without an answer are written one statement each, side by side. */
export const MIN_GROUP = 2;

/**
 * Group commit for the writes that need no transaction of their own: a command appending to one stream outside any
 * transaction (most API writes), and a request with an Idempotency-Key whose unit of work staged its appends without
 * beginning a transaction (its answer commits with them). The writes that arrive in the same turn of the event loop
 * are written together by one statement, which commits on its own, so under concurrent writes one round trip and one
 * commit (one WAL flush) serve several commands. Each keeps its own outcome: when another writer moved one of the
 * group's streams, another request stored the answer of one of its keys first, or the statement fails otherwise,
 * nothing of the group is written and each write is written again on its own (the failing one then fails alone). A
 * stream, and a key, appear at most once per group: a second write to it waits for the next turn, where its expected
 * version (or its key) is checked against what the first one wrote. Nothing is answered before its commit.
 */
export class GroupedAppends {
  private pending: Pending[] = [];

  constructor(
    /** One append, one statement (atomic on its own). */
    private readonly one: (append: StreamAppend, metadata: EventMetadata) => Promise<AppendResult>,
    /** A unit's appends (several streams, perhaps none) and its request's answer, atomically, without the group. */
    private readonly alone: (staged: readonly StagedAppend[], answer: RequestAnswer) => Promise<readonly WrittenStream[]>,
    /** Several writes, one statement that commits on its own: all written, or none and an error (a StreamVersionConflictError naming a moved stream, or any other). */
    private readonly many: (staged: readonly StagedAppend[], answers: readonly RequestAnswer[]) => Promise<readonly WrittenStream[]>,
  ) {}

  append(append: StreamAppend, metadata: EventMetadata): Promise<AppendResult> {
    if (append.events.length === 0) return this.one(append, metadata);
    return this.enqueue([{ append, metadata }]).then((written) => ({ nextVersions: [nextVersion(append)], written }));
  }

  /** A keyed request's staged appends with its answer: both committed, or neither (see EventStore.appendAnswered). */
  appendAnswered(staged: readonly StagedAppend[], answer: RequestAnswer): Promise<readonly WrittenStream[]> {
    if (staged.length === 0) return this.alone(staged, answer);
    return this.enqueue(staged, answer);
  }

  private enqueue(staged: readonly StagedAppend[], answer?: RequestAnswer): Promise<readonly WrittenStream[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.push({ staged, answer, resolve, reject }) === 1) this.schedule();
    });
  }

  /** Next turn, outside whatever unit of work the writer that scheduled it is in (appends in a unit's transaction never come here). */
  private schedule(): void {
    setImmediate(() => void outsideUnitOfWork(() => this.flush()));
  }

  private async flush(): Promise<void> {
    const waiting = this.pending;
    this.pending = [];
    const taken = new Set<string>();
    const group: Pending[] = [];
    for (const pending of waiting) {
      const keys = keysOf(pending);
      if (keys.some((key) => taken.has(key))) this.pending.push(pending);
      else {
        for (const key of keys) taken.add(key);
        group.push(pending);
      }
    }
    if (this.pending.length > 0) this.schedule();
    await this.write(group);
  }

  private async write(group: readonly Pending[]): Promise<void> {
    // A keyed write on its own would take a transaction of its own (four round trips): as a group of one it is one statement.
    if (group.length < MIN_GROUP && group.every((pending) => !pending.answer)) {
      await Promise.all(group.map((pending) => this.writeAlone(pending)));
      return;
    }
    let written: readonly WrittenStream[];
    try {
      written = await this.many(
        group.flatMap((pending) => pending.staged),
        group.flatMap((pending) => (pending.answer ? [pending.answer] : [])),
      );
    } catch (error) {
      const moved =
        error instanceof StreamVersionConflictError
          ? group.find((pending) => pending.staged.some(({ append }) => streamKey(append.stream) === streamKey(error.stream)))
          : undefined;
      if (moved) {
        moved.reject(error);
        await this.write(group.filter((pending) => pending !== moved));
      } else {
        await Promise.all(group.map((pending) => this.writeAlone(pending)));
      }
      return;
    }
    for (const pending of group) {
      // The group's positions of these stream types: all in one transaction, so waiting for them is waiting for these appends.
      const types = new Set(pending.staged.map(({ append }) => append.stream.streamType));
      pending.resolve(written.filter((stream) => types.has(stream.streamType)));
    }
  }

  private async writeAlone({ staged, answer, resolve, reject }: Pending): Promise<void> {
    try {
      if (answer) resolve(await this.alone(staged, answer));
      else resolve((await this.one(staged[0].append, staged[0].metadata)).written);
    } catch (error) {
      reject(error);
    }
  }
}

/** What may appear once per group: the streams a write appends to, and its request's key. */
function keysOf({ staged, answer }: Pending): string[] {
  const keys = staged.map(({ append }) => streamKey(append.stream));
  return answer ? [...keys, `key ${answer.environmentId}/${answer.subject}/${answer.key}`] : keys;
}

function nextVersion(append: StreamAppend): number {
  return (append.expectedVersion === 'no_stream' ? 0 : append.expectedVersion) + append.events.length;
}
