import { Injectable } from '@nestjs/common';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { EventStore, RecordedEvent, StreamRef } from '@billing/event-store';

interface ResourceView {
  readonly evolver: Evolver<unknown, DomainEvent>;
  readonly toView: (state: unknown) => unknown;
}

/**
 * How each bounded context renders its resource "as the API returns it" from
 * its own events. The webhook context uses it to put the resource, as of the
 * event, into a notification without reading another context's tables.
 */
@Injectable()
export class ResourceViews {
  private readonly views = new Map<string, ResourceView>();

  constructor(private readonly eventStore: EventStore) {}

  register<State, Event extends DomainEvent>(streamType: string, evolver: Evolver<State, Event>, toView: (state: State) => unknown): void {
    this.views.set(streamType, { evolver: evolver as unknown as Evolver<unknown, DomainEvent>, toView: toView as (state: unknown) => unknown });
  }

  /** The resource as of `event` (its stream folded up to and including it), or null for streams without a view. */
  async viewAt(event: RecordedEvent, manager?: Parameters<EventStore['readStream']>[1]): Promise<unknown | null> {
    const view = this.views.get(event.streamType);
    if (!view) return null;
    const stream: StreamRef = { environmentId: event.environmentId, streamType: event.streamType, streamId: event.streamId };
    const events = (await this.eventStore.readStream(stream, manager)).filter((e) => e.streamVersion <= event.streamVersion);
    const state = events.reduce((current, e) => view.evolver.evolve(current, { type: e.type, schemaVersion: e.schemaVersion, data: e.data }), view.evolver.initialState());
    return view.toView(state);
  }
}
