import { EntityManager } from 'typeorm';
import { EventStore, foldStream, RecordedEvent, StreamRef } from '@billing/event-store';
import { BoundedContext, NotificationDefinition, StreamDefinition } from './bounded-context';

/**
 * Every webhook notification the service publishes, collected from the
 * contexts' definitions: which names an event produces, and the resource it
 * carries (the stream's view folded up to the event). The webhooks context
 * reads this; it knows no other context's event names or payloads.
 */
export class NotificationCatalogue {
  private readonly byEvent = new Map<string, NotificationDefinition[]>();
  private readonly streams = new Map<string, StreamDefinition>();

  constructor(
    contexts: readonly BoundedContext[],
    private readonly eventStore: EventStore,
  ) {
    for (const context of contexts) {
      for (const stream of context.streams) this.streams.set(stream.type, stream);
      for (const notification of context.notifications) {
        const key = `${notification.streamType}/${notification.eventType}`;
        this.byEvent.set(key, [...(this.byEvent.get(key) ?? []), notification]);
      }
    }
  }

  /** All notifications, for documentation. */
  all(): NotificationDefinition[] {
    return [...this.byEvent.values()].flat();
  }

  /** The notification names one event produces, in sending order (none for most internal events). */
  namesFor(event: Pick<RecordedEvent, 'streamType' | 'type' | 'data'>): string[] {
    return (this.byEvent.get(`${event.streamType}/${event.type}`) ?? []).filter((n) => !n.when || n.when(event.data)).map((n) => n.name);
  }

  /** The resource as of `event`, as the API renders it; null for streams without a view. */
  async resourceAt(event: RecordedEvent, manager?: EntityManager): Promise<unknown | null> {
    return (await this.resourcesAt([event], manager)).get(event.eventId) ?? null;
  }

  /** The resource as of each event, by event id (one query for all their streams); null for streams without a view. */
  async resourcesAt(events: readonly RecordedEvent[], manager?: EntityManager): Promise<Map<string, unknown | null>> {
    const upTo = new Map<string, StreamRef & { upToVersion: number }>();
    for (const event of events) {
      if (!this.streams.get(event.streamType)?.view) continue;
      const key = streamKey(event);
      const known = upTo.get(key);
      if (!known || known.upToVersion < event.streamVersion) {
        upTo.set(key, { environmentId: event.environmentId, streamType: event.streamType, streamId: event.streamId, upToVersion: event.streamVersion });
      }
    }
    const history = new Map<string, RecordedEvent[]>();
    for (const read of await this.eventStore.readStreamsUpTo([...upTo.values()], manager)) {
      const key = streamKey(read);
      const stream = history.get(key);
      if (stream) stream.push(read);
      else history.set(key, [read]);
    }
    const resources = new Map<string, unknown | null>();
    for (const event of events) {
      const view = this.streams.get(event.streamType)?.view;
      const stream = view ? (history.get(streamKey(event)) ?? []).filter((e) => e.streamVersion <= event.streamVersion) : [];
      resources.set(event.eventId, view ? view.toView(foldStream(stream, view.evolver).state) : null);
    }
    return resources;
  }
}

function streamKey(stream: StreamRef): string {
  return `${stream.environmentId}/${stream.streamType}/${stream.streamId}`;
}
