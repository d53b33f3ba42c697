import fc from 'fast-check';
import { RETRY_MAX_DELAY_SECONDS, RETRY_WINDOW_SECONDS, nextAttemptAt, nominalDelaySeconds, nominalRetrySchedule, retryCutoff } from './retry-schedule';

const recordedAt = new Date('2024-07-01T00:00:00.000Z');
const at = (seconds: number) => new Date(recordedAt.getTime() + seconds * 1000);
const secondsAfter = (from: Date, to: Date | null) => (to!.getTime() - from.getTime()) / 1000;

describe('nominal delays', () => {
  it('double from 30 s and are capped at 6 h', () => {
    expect([1, 2, 3, 10, 11, 12, 1000].map(nominalDelaySeconds)).toEqual([
      30,
      60,
      120,
      15360,
      RETRY_MAX_DELAY_SECONDS,
      RETRY_MAX_DELAY_SECONDS,
      RETRY_MAX_DELAY_SECONDS,
    ]);
  });

  it('grow monotonically', () => {
    for (let n = 1; n < 40; n++) expect(nominalDelaySeconds(n + 1)).toBeGreaterThanOrEqual(nominalDelaySeconds(n));
  });

  it.each([0, -1, 1.5, Number.NaN])('refuse attempt %p', (attempt) => {
    expect(() => nominalDelaySeconds(attempt)).toThrow(RangeError);
  });
});

describe('nextAttemptAt', () => {
  it('without jitter (random 0.5) waits the nominal delay from now', () => {
    const now = at(100);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 1, now, random: 0.5 }))).toBe(30);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 4, now, random: 0.5 }))).toBe(240);
  });

  it('jitters by +-20 %', () => {
    const now = at(0);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 3, now, random: 0 }))).toBe(96);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 3, now, random: 1 }))).toBe(144);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 20, now, random: 1 }))).toBe(RETRY_MAX_DELAY_SECONDS * 1.2);
  });

  it('always lands within the jitter band of the capped delay', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, random) => {
        const due = nextAttemptAt({ recordedAt, attempt, now: recordedAt, random });
        const delay = secondsAfter(recordedAt, due);
        const nominal = nominalDelaySeconds(attempt);
        expect(delay).toBeGreaterThanOrEqual(nominal * 0.8 - 0.001);
        expect(delay).toBeLessThanOrEqual(nominal * 1.2 + 0.001);
      }),
    );
  });

  it('schedules an attempt due exactly at the 72 h cut-off, and gives up one millisecond later', () => {
    const now = at(RETRY_WINDOW_SECONDS - 30);
    expect(nextAttemptAt({ recordedAt, attempt: 1, now, random: 0.5 })).toEqual(retryCutoff(recordedAt));
    const later = new Date(now.getTime() + 1);
    expect(nextAttemptAt({ recordedAt, attempt: 1, now: later, random: 0.5 })).toBeNull();
  });

  it('gives up once now is past the cut-off', () => {
    expect(nextAttemptAt({ recordedAt, attempt: 1, now: at(RETRY_WINDOW_SECONDS + 1), random: 0 })).toBeNull();
  });

  it('honours a Retry-After longer than the backoff', () => {
    const now = at(0);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 1, now, random: 0.5, retryAfterSeconds: 600 }))).toBe(600);
  });

  it('keeps the backoff when Retry-After is shorter', () => {
    const now = at(0);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 5, now, random: 0.5, retryAfterSeconds: 10 }))).toBe(480);
  });

  it.each([-5, 0, Number.NaN, Number.POSITIVE_INFINITY])('ignores a meaningless Retry-After %p', (retryAfterSeconds) => {
    const now = at(0);
    expect(secondsAfter(now, nextAttemptAt({ recordedAt, attempt: 1, now, random: 0.5, retryAfterSeconds }))).toBe(30);
  });

  it('gives up when Retry-After points past the cut-off', () => {
    const now = at(RETRY_WINDOW_SECONDS - 3600);
    expect(nextAttemptAt({ recordedAt, attempt: 1, now, random: 0.5, retryAfterSeconds: 3600 })).toEqual(retryCutoff(recordedAt));
    expect(nextAttemptAt({ recordedAt, attempt: 1, now, random: 0.5, retryAfterSeconds: 3601 })).toBeNull();
  });

  it.each([-0.1, 1.1, Number.NaN])('refuses random %p', (random) => {
    expect(() => nextAttemptAt({ recordedAt, attempt: 1, now: recordedAt, random })).toThrow(RangeError);
  });
});

describe('nominalRetrySchedule', () => {
  it('lists 20 retries ending within 72 h', () => {
    const schedule = nominalRetrySchedule();
    expect(schedule).toHaveLength(20);
    expect(schedule.slice(0, 3)).toEqual([
      { retry: 1, delaySeconds: 30, atSeconds: 30 },
      { retry: 2, delaySeconds: 60, atSeconds: 90 },
      { retry: 3, delaySeconds: 120, atSeconds: 210 },
    ]);
    const last = schedule[schedule.length - 1];
    expect(last.atSeconds).toBe(246690);
    expect(last.atSeconds + RETRY_MAX_DELAY_SECONDS).toBeGreaterThan(RETRY_WINDOW_SECONDS);
  });
});
