import { CommandMetadata, DomainEvent, Evolver } from '@billing/shared-kernel';
import { EntityManager } from 'typeorm';
import { EventStore } from './event-store';
import { AppendResult, EventMetadata, NewEvent, StreamAppend, StreamRef } from './types';

export interface LoadedStream<State> {
  readonly state: State;
  /** 0 when the stream does not exist. */
  readonly version: number;
}

/** Waits until read models reflect a write (read-your-writes). */
export interface ConsistencyWaiter {
  waitFor(position: NonNullable<AppendResult['lastPosition']>): Promise<boolean>;
}

/**
 * What a command handler needs: load a stream into state, then append the
 * events its decider returned with the version it loaded. The answer to the
 * client is sent only after the read models have caught up.
 */
export class AggregateStore {
  constructor(
    private readonly eventStore: EventStore,
    private readonly consistency: ConsistencyWaiter,
  ) {}

  async load<State, Event extends DomainEvent>(
    stream: StreamRef,
    evolver: Evolver<State, Event>,
    manager?: EntityManager,
  ): Promise<LoadedStream<State>> {
    const events = await this.eventStore.readStream(stream, manager);
    const state = events.reduce(
      (current, event) => evolver.evolve(current, { type: event.type, schemaVersion: event.schemaVersion, data: event.data } as Event),
      evolver.initialState(),
    );
    return { state, version: events.length === 0 ? 0 : events[events.length - 1].streamVersion };
  }

  /** Appends atomically; pass `manager` to join a transaction the handler opened (e.g. for a sequence number). */
  async append(appends: readonly StreamAppend[], metadata: EventMetadata, manager?: EntityManager): Promise<AppendResult> {
    const result = await this.eventStore.append(appends, metadata, manager);
    if (!manager && result.lastPosition) await this.consistency.waitFor(result.lastPosition);
    return result;
  }

  /** For handlers that append inside their own transaction: wait after it committed. */
  async awaitReadModels(result: AppendResult): Promise<void> {
    if (result.lastPosition) await this.consistency.waitFor(result.lastPosition);
  }
}

/** Gives decided domain events their identity and time of occurrence. */
export function toNewEvents(events: readonly DomainEvent[], meta: CommandMetadata): NewEvent[] {
  return events.map((event) => ({
    eventId: meta.newId(),
    type: event.type,
    schemaVersion: event.schemaVersion,
    data: event.data,
    occurredAt: meta.now,
  }));
}
