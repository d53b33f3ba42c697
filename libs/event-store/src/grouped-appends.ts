import { StreamVersionConflictError } from './errors';
import { AppendResult, EventMetadata, StreamAppend, StreamRef, WrittenStream } from './types';
import { outsideUnitOfWork, StagedAppend } from './unit-of-work';

interface Pending {
  readonly append: StreamAppend;
  readonly metadata: EventMetadata;
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
}

/** Fewer than this many waiting appends are written one statement each, side by side. */
export const MIN_GROUP = 2;

/**
 * Group commit for the commands that append to one stream outside any transaction (most API writes): the appends
 * that arrive in the same turn of the event loop are written together by one statement, which commits on its own,
 * so under concurrent writes one round trip and one commit (one WAL flush) serve several commands. Each command
 * keeps its own outcome: when another writer moved one of the group's streams, or the statement fails otherwise,
 * nothing of the group is written and each append is written again on its own (the moved one then fails with its
 * conflict, alone). A stream appears at most once per group: a second append to it waits for the next turn, where
 * its expected version is checked against what the first one wrote. Nothing is answered before its commit.
 */
export class GroupedAppends {
  private pending: Pending[] = [];

  constructor(
    /** One append, one statement (atomic on its own). */
    private readonly one: (append: StreamAppend, metadata: EventMetadata) => Promise<AppendResult>,
    /** Several appends, one statement that commits on its own: all written, or none and an error (a StreamVersionConflictError naming a moved stream, or any other). */
    private readonly many: (staged: readonly StagedAppend[]) => Promise<readonly WrittenStream[]>,
  ) {}

  append(append: StreamAppend, metadata: EventMetadata): Promise<AppendResult> {
    if (append.events.length === 0) return this.one(append, metadata);
    return new Promise((resolve, reject) => {
      if (this.pending.push({ append, metadata, resolve, reject }) === 1) this.schedule();
    });
  }

  /** Next turn, outside whatever unit of work the appender that scheduled it is in (appends in units never come here). */
  private schedule(): void {
    setImmediate(() => void outsideUnitOfWork(() => this.flush()));
  }

  private async flush(): Promise<void> {
    const waiting = this.pending;
    this.pending = [];
    const streams = new Set<string>();
    const group: Pending[] = [];
    for (const pending of waiting) {
      const key = keyOf(pending.append.stream);
      if (streams.has(key)) this.pending.push(pending);
      else {
        streams.add(key);
        group.push(pending);
      }
    }
    if (this.pending.length > 0) this.schedule();
    await this.write(group);
  }

  private async write(group: readonly Pending[]): Promise<void> {
    if (group.length < MIN_GROUP) {
      await Promise.all(group.map((pending) => this.writeAlone(pending)));
      return;
    }
    let written: readonly WrittenStream[];
    try {
      written = await this.many(group.map(({ append, metadata }) => ({ append, metadata })));
    } catch (error) {
      const moved = error instanceof StreamVersionConflictError ? group.find((pending) => keyOf(pending.append.stream) === keyOf(error.stream)) : undefined;
      if (moved) {
        moved.reject(error);
        await this.write(group.filter((pending) => pending !== moved));
      } else {
        await Promise.all(group.map((pending) => this.writeAlone(pending)));
      }
      return;
    }
    for (const { append, resolve } of group) {
      // The group's positions of this stream type: all in one transaction, so waiting for them is waiting for this append.
      resolve({ nextVersions: [nextVersion(append)], written: written.filter((stream) => stream.streamType === append.stream.streamType) });
    }
  }

  private async writeAlone({ append, metadata, resolve, reject }: Pending): Promise<void> {
    try {
      resolve(await this.one(append, metadata));
    } catch (error) {
      reject(error);
    }
  }
}

function keyOf(stream: StreamRef): string {
  return `${stream.environmentId}/${stream.streamType}/${stream.streamId}`;
}

function nextVersion(append: StreamAppend): number {
  return (append.expectedVersion === 'no_stream' ? 0 : append.expectedVersion) + append.events.length;
}
