import { EntityManager } from 'typeorm';
import { EventStore, foldStream, RecordedEvent } from '@billing/event-store';
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
    const view = this.streams.get(event.streamType)?.view;
    if (!view) return null;
    const events = (await this.eventStore.readStream(event, manager)).filter((e) => e.streamVersion <= event.streamVersion);
    return view.toView(foldStream(events, view.evolver).state);
  }
}
