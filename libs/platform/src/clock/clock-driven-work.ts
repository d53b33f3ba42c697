import { Injectable } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { ScopedClock } from './scoped-clock';

/** Something a context runs when an environment's clock moves (the billing engine): process everything due up to `now` for that environment, and resolve only when done. */
export interface ClockDrivenWork {
  readonly name: string;
  catchUp(environmentId: string, now: Date): Promise<void>;
}

/**
 * The work that must catch up when an environment's time moves. Contexts
 * register in `onModuleInit` (`registry.register(this)`); `catchUp` runs every
 * registered work, one after the other in registration order, and resolves
 * when the last one has.
 *
 * Each run happens in the async context the registry was created in (at
 * startup), inside a clock scope of `now`: so `Clock.now()` answers `now`
 * throughout, and no request's ambient state reaches the work — neither the
 * caller's clock scope (the old time) nor its unit of work (an
 * Idempotency-Key's transaction). The work commits as it would from a worker.
 */
@Injectable()
export class ClockDrivenWorkRegistry {
  private readonly works: ClockDrivenWork[] = [];
  private readonly root = new AsyncResource('ClockDrivenWorkRegistry');

  constructor(private readonly clock: ScopedClock) {}

  register(work: ClockDrivenWork): void {
    if (this.works.some((registered) => registered.name === work.name)) throw new Error(`clock-driven work ${work.name} is registered twice`);
    this.works.push(work);
  }

  /** The registered works' names, in the order they run. */
  get names(): readonly string[] {
    return this.works.map((work) => work.name);
  }

  async catchUp(environmentId: string, now: Date): Promise<void> {
    const works = [...this.works];
    await this.root.runInAsyncScope(() =>
      this.clock.runAt(now, async () => {
        for (const work of works) await work.catchUp(environmentId, new Date(now));
      }),
    );
  }
}
