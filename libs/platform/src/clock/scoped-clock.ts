import { AsyncLocalStorage } from 'node:async_hooks';
import { Clock } from '../http/request-context';

interface ClockScope {
  readonly now: Date;
  open: boolean;
}

/**
 * The `Clock` the application injects everywhere. Inside `runAt(instant, …)`
 * (a request of an environment, a catch-up run) it answers that instant, so
 * code that reads `clock.now()` — `commandContext`, controllers, the
 * Idempotency-Key store — lives in the environment's time without knowing it.
 * Elsewhere (workers, timers, startup) it answers the base clock: the system
 * clock in production, a fake in tests.
 *
 * A scope is closed when its work settles: a callback that outlives the work
 * (a background loop some request happened to wake) falls back to the base
 * clock rather than keeping that environment's time forever.
 */
export class ScopedClock extends Clock {
  private readonly scopes = new AsyncLocalStorage<ClockScope>();

  constructor(readonly base: Clock) {
    super();
  }

  now(): Date {
    const scope = this.scopes.getStore();
    return scope?.open ? new Date(scope.now) : this.base.now();
  }

  /** Runs `work` with `now()` answering `instant` in everything it awaits, until it settles. */
  async runAt<Result>(instant: Date, work: () => Promise<Result>): Promise<Result> {
    const scope: ClockScope = { now: new Date(instant), open: true };
    try {
      return await this.scopes.run(scope, work);
    } finally {
      scope.open = false;
    }
  }
}
