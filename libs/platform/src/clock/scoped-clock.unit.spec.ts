import { Clock } from '../http/request-context';
import { ScopedClock } from './scoped-clock';

class ManualClock extends Clock {
  constructor(public current: Date) {
    super();
  }
  now(): Date {
    return new Date(this.current);
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('ScopedClock', () => {
  const base = new ManualClock(new Date('2026-01-15T10:00:00.000Z'));
  const clock = new ScopedClock(base);
  const scoped = new Date('2030-06-01T00:00:00.000Z');

  it('answers the base clock outside any scope, following it', () => {
    expect(clock.now()).toEqual(base.current);
    base.current = new Date('2026-01-16T10:00:00.000Z');
    expect(clock.now()).toEqual(new Date('2026-01-16T10:00:00.000Z'));
  });

  it("answers the scope's instant in everything the work awaits, and the base clock again after it", async () => {
    const seen: Date[] = [];
    const result = await clock.runAt(scoped, async () => {
      seen.push(clock.now());
      await tick();
      seen.push(clock.now());
      await Promise.all([tick().then(() => seen.push(clock.now())), new Promise<void>((resolve) => setImmediate(() => resolve(void seen.push(clock.now()))))]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual([scoped, scoped, scoped, scoped]);
    expect(clock.now()).toEqual(base.current);
  });

  it('keeps concurrent scopes apart', async () => {
    const other = new Date('2028-02-29T12:00:00.000Z');
    const [a, b] = await Promise.all([
      clock.runAt(scoped, async () => {
        await tick();
        return clock.now();
      }),
      clock.runAt(other, async () => {
        await tick();
        return clock.now();
      }),
    ]);
    expect([a, b]).toEqual([scoped, other]);
  });

  it('lets an inner scope override an outer one for its own work only', async () => {
    const inner = new Date('2031-01-01T00:00:00.000Z');
    await clock.runAt(scoped, async () => {
      expect(await clock.runAt(inner, async () => clock.now())).toEqual(inner);
      expect(clock.now()).toEqual(scoped);
    });
  });

  it('closes the scope when the work settles: a callback that outlives it reads the base clock', async () => {
    let later: (() => Date) | undefined;
    let leaked: Date | undefined;
    await clock.runAt(scoped, async () => {
      later = () => clock.now();
      const timer = new Promise<Date>((resolve) => setTimeout(() => resolve(clock.now()), 20));
      void timer.then((value) => (leaked = value));
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(leaked).toEqual(base.current);
    expect(later!()).toEqual(base.current);
  });

  it('closes the scope when the work fails too, and passes the failure on', async () => {
    let escaped: Promise<Date> | undefined;
    await expect(
      clock.runAt(scoped, async () => {
        escaped = new Promise((resolve) => setTimeout(() => resolve(clock.now()), 10));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await escaped).toEqual(base.current);
  });

  it('hands out copies: mutating an answer changes nothing', async () => {
    await clock.runAt(scoped, async () => {
      clock.now().setUTCFullYear(1999);
      expect(clock.now()).toEqual(scoped);
    });
    const instant = new Date(scoped);
    await clock.runAt(instant, async () => {
      instant.setUTCFullYear(1999);
      expect(clock.now()).toEqual(scoped);
    });
  });
});
