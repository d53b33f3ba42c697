import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { CommandSession, LoadedStream, StreamRef, StreamVersionConflictError } from '@billing/event-store';

/** What a command wrote: the resource's id (a tax code's code) and its stream's version after the write. */
export interface Written {
  readonly id: string;
  readonly version: number;
}

/**
 * Loads a stream inside a command's transaction and holds it to the client's
 * expected version exactly as CommandPath.handle does: a stream that exists
 * at another version is a 409; a missing one is left to the decider (404).
 */
export async function loadExpecting<State, Event extends DomainEvent>(
  session: CommandSession,
  stream: StreamRef,
  evolver: Evolver<State, Event>,
  expectedVersion: number | undefined,
): Promise<LoadedStream<State>> {
  const loaded = await session.load(stream, evolver);
  if (expectedVersion !== undefined && loaded.version > 0 && loaded.version !== expectedVersion) {
    throw new StreamVersionConflictError(stream, expectedVersion);
  }
  return loaded;
}
