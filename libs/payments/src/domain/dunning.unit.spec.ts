import fc from 'fast-check';
import { ValidationError } from '@billing/shared-kernel';
import { DEFAULT_RETRY_DAYS, afterFailedCollection, nextCollectionAttempt, validateRetrySchedule } from './dunning';

const firstFailureAt = new Date('2025-03-01T10:15:00.000Z');

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('nextCollectionAttempt', () => {
  it('retries 1, 3, 5 and 7 days after the first failure by default, then gives up', () => {
    expect([1, 2, 3, 4, 5].map((failed) => nextCollectionAttempt(DEFAULT_RETRY_DAYS, failed, firstFailureAt)?.toISOString() ?? null)).toEqual([
      '2025-03-02T10:15:00.000Z',
      '2025-03-04T10:15:00.000Z',
      '2025-03-06T10:15:00.000Z',
      '2025-03-08T10:15:00.000Z',
      null,
    ]);
  });

  it('counts 24-hour days, across a daylight-saving change too', () => {
    expect(nextCollectionAttempt([1], 1, new Date('2025-03-29T23:30:00.000Z'))).toEqual(new Date('2025-03-30T23:30:00.000Z'));
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses failedAttempts %p', (failed) => {
    expect(() => nextCollectionAttempt(DEFAULT_RETRY_DAYS, failed, firstFailureAt)).toThrow(RangeError);
  });

  it('the default schedule cannot be changed in place', () => {
    expect(Object.isFrozen(DEFAULT_RETRY_DAYS)).toBe(true);
  });

  // Oracle: the k-th retry is the k-th entry's day after the first failure; the dates then rise strictly.
  it('follows any valid schedule to its end', () => {
    const schedule = fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 10 }).map((days) => [...days].sort((a, b) => a - b));
    fc.assert(
      fc.property(schedule, fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), (days, first) => {
        const dates = days.map((_, k) => nextCollectionAttempt(days, k + 1, first)!);
        dates.forEach((date, k) => expect((date.getTime() - first.getTime()) / 86_400_000).toBe(days[k]));
        dates.slice(1).forEach((date, k) => expect(date.getTime()).toBeGreaterThan(dates[k].getTime()));
        expect(nextCollectionAttempt(days, days.length + 1, first)).toBeNull();
      }),
    );
  });
});

describe('afterFailedCollection', () => {
  it('retries a soft failure as the next attempt', () => {
    expect(afterFailedCollection(DEFAULT_RETRY_DAYS, { attempt: 2, retryable: true }, firstFailureAt)).toEqual({
      kind: 'retry',
      attempt: 3,
      at: new Date('2025-03-04T10:15:00.000Z'),
    });
  });

  it('gives up at once on a hard decline', () => {
    expect(afterFailedCollection(DEFAULT_RETRY_DAYS, { attempt: 1, retryable: false }, firstFailureAt)).toEqual({ kind: 'give-up', reason: 'hard-decline' });
  });

  it('gives up after the last scheduled try (the fifth by default)', () => {
    expect(afterFailedCollection(DEFAULT_RETRY_DAYS, { attempt: 5, retryable: true }, firstFailureAt)).toEqual({
      kind: 'give-up',
      reason: 'schedule-exhausted',
    });
  });
});

describe('validateRetrySchedule', () => {
  it.each([[[1, 3, 5, 7]], [[60]], [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]])('accepts %p', (days) => {
    expect(validateRetrySchedule(days)).toEqual(days);
  });

  it('returns a copy', () => {
    const days = [1, 2];
    expect(validateRetrySchedule(days)).not.toBe(days);
  });

  it.each([null, '1,3,5,7', { 0: 1 }])('refuses %p at /retryDays', (value) => {
    expect(refusal(() => validateRetrySchedule(value)).errors).toEqual([
      { pointer: '/retryDays', detail: 'must be an array of 1 to 10 days, e.g. [1, 3, 5, 7]' },
    ]);
  });

  it.each([[[]], [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]])('refuses %p for its length', (days) => {
    expect(refusal(() => validateRetrySchedule(days)).errors).toEqual([{ pointer: '/retryDays', detail: `must list 1 to 10 retries; got ${days.length}` }]);
  });

  it('reports each bad entry at its index', () => {
    expect(refusal(() => validateRetrySchedule([0, 3, 3, 2.5, 61, '9', 8, 4])).errors).toEqual([
      { pointer: '/retryDays/0', detail: 'must be a whole number of days from 1 to 60' },
      { pointer: '/retryDays/2', detail: 'must be after the previous retry (day 3)' },
      { pointer: '/retryDays/3', detail: 'must be a whole number of days from 1 to 60' },
      { pointer: '/retryDays/4', detail: 'must be a whole number of days from 1 to 60' },
      { pointer: '/retryDays/5', detail: 'must be a whole number of days from 1 to 60' },
      { pointer: '/retryDays/7', detail: 'must be after the previous retry (day 8)' },
    ]);
  });

  it('uses the caller pointer', () => {
    expect(refusal(() => validateRetrySchedule([0], '/dunning/retryDays')).errors[0].pointer).toBe('/dunning/retryDays/0');
  });

  // Oracle: the definition, stated directly.
  it('accepts exactly the 1–10 strictly increasing whole days from 1 to 60', () => {
    const entry = fc.oneof(fc.integer({ min: -3, max: 65 }), fc.double({ noNaN: false }), fc.constant('1'));
    // Sorted unique days are mostly valid, random entries mostly not: both sides of the rule get exercised.
    const sorted = fc.uniqueArray(fc.integer({ min: 0, max: 61 }), { maxLength: 12 }).map((days) => [...days].sort((a, b) => a - b));
    fc.assert(
      fc.property(fc.oneof(fc.array(entry, { maxLength: 12 }), sorted), (days: unknown[]) => {
        const valid =
          days.length >= 1 &&
          days.length <= 10 &&
          days.every((d) => typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= 60) &&
          days.every((d, i) => i === 0 || (d as number) > (days[i - 1] as number));
        if (valid) expect(validateRetrySchedule(days)).toEqual(days);
        else expect(() => validateRetrySchedule(days)).toThrow(ValidationError);
      }),
    );
  });
});
