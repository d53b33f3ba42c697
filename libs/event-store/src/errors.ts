import { ConflictError } from '@billing/shared-kernel';
import { StreamRef } from './types';

/** Another writer appended to the stream first (or it already exists): the caller must reload and retry. */
export class StreamVersionConflictError extends ConflictError {
  constructor(
    /** The stream another writer moved first. */
    readonly stream: StreamRef,
    expected: number | 'no_stream',
  ) {
    super(
      expected === 'no_stream' ? 'stream-exists' : 'version-conflict',
      expected === 'no_stream'
        ? `${stream.streamType} ${stream.streamId} already exists`
        : `${stream.streamType} ${stream.streamId} was changed by another request (expected version ${expected}); reload and retry`,
    );
  }
}

/**
 * The write committed, but the read models it feeds did not show it in time.
 * Not a success (a following GET could show the old state) and not a failure
 * of the write: the caller is told both, and a retry with the same
 * Idempotency-Key is safe.
 */
export class ReadModelTimeoutError extends Error {
  constructor(
    readonly projections: readonly string[],
    readonly timeoutMs: number,
  ) {
    super(`the change was recorded, but ${projections.join(', ')} did not reflect it within ${timeoutMs} ms`);
    this.name = 'ReadModelTimeoutError';
  }
}

/**
 * Another request with the same Idempotency-Key stored its answer first (a twin in another process): nothing of
 * this request was committed, and its answer is that stored one.
 */
export class RequestAnsweredBeforeError extends Error {
  constructor() {
    super('another request with the same idempotency key stored its answer first');
    this.name = 'RequestAnsweredBeforeError';
  }
}
