import { EntityManager } from 'typeorm';
import { RecordedEvent } from './types';

/**
 * A subscriber to the global log. `apply` runs inside the transaction that
 * also moves the projection's checkpoint, so an event's effect on the read
 * model is committed exactly once, even across crashes.
 */
export interface Projection {
  readonly name: string;
  /**
   * `read-your-writes`: a write answers only after this projection has caught
   * up with it (read models). `eventual`: nobody waits (fan-out to webhooks).
   */
  readonly consistency: 'read-your-writes' | 'eventual';
  apply(event: RecordedEvent, tx: EntityManager): Promise<void>;
  /** Empties the read model so it can be rebuilt from position zero. */
  reset?(tx: EntityManager): Promise<void>;
}
