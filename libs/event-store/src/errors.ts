import { ConflictError } from '@billing/shared-kernel';
import { StreamRef } from './types';

/** Another writer appended to the stream first (or it already exists): the caller must reload and retry. */
export class StreamVersionConflictError extends ConflictError {
  constructor(stream: StreamRef, expected: number | 'no_stream') {
    super(
      expected === 'no_stream' ? 'stream-exists' : 'version-conflict',
      expected === 'no_stream'
        ? `${stream.streamType} ${stream.streamId} already exists`
        : `${stream.streamType} ${stream.streamId} was changed by another request (expected version ${expected}); reload and retry`,
    );
  }
}
