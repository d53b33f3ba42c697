import fc from 'fast-check';
import { daysBetween } from '@billing/shared-kernel';
import { addMonths, validDate } from './calendar';
import { Recurrence, TermUnit, nthPeriod, periodAt, periodIndexAt, proRate, termEnd, termLengthOf } from './periods';

const periods = (anchor: string, recurrence: Recurrence, count: number) => Array.from({ length: count }, (_, k) => nthPeriod(anchor, recurrence, k));
const monthly: Recurrence = { termCount: 1, termUnit: 'month' };

describe('periods', () => {
  it('anchor Jan 31, monthly: keeps the 31st, clamped to shorter months, each period ending the day before the next', () => {
    expect(periods('2026-01-31', monthly, 4)).toEqual([
      { start: '2026-01-31', end: '2026-02-27' },
      { start: '2026-02-28', end: '2026-03-30' },
      { start: '2026-03-31', end: '2026-04-29' },
      { start: '2026-04-30', end: '2026-05-30' },
    ]);
  });

  it('anchor Jan 31, monthly, in a leap year: Feb 29', () => {
    expect(periods('2024-01-31', monthly, 2)).toEqual([
      { start: '2024-01-31', end: '2024-02-28' },
      { start: '2024-02-29', end: '2024-03-30' },
    ]);
  });

  it('a Feb 29 yearly anchor bills Feb 28 in common years and Feb 29 again in leap years', () => {
    expect(periods('2024-02-29', { termCount: 1, termUnit: 'year' }, 5).map((period) => period.start)).toEqual([
      '2024-02-29',
      '2025-02-28',
      '2026-02-28',
      '2027-02-28',
      '2028-02-29',
    ]);
  });

  it('days and weeks are fixed lengths; termCount multiplies the unit', () => {
    expect(nthPeriod('2026-01-01', { termCount: 1, termUnit: 'day' }, 3)).toEqual({ start: '2026-01-04', end: '2026-01-04' });
    expect(nthPeriod('2026-01-01', { termCount: 2, termUnit: 'week' }, 1)).toEqual({ start: '2026-01-15', end: '2026-01-28' });
    expect(nthPeriod('2025-11-30', { termCount: 3, termUnit: 'month' }, 1)).toEqual({ start: '2026-02-28', end: '2026-05-29' });
  });

  it('finds the period holding a date; a date before the anchor is in the first period', () => {
    expect(periodIndexAt('2026-01-31', monthly, '2026-03-30')).toBe(1);
    expect(periodIndexAt('2026-01-31', monthly, '2026-03-31')).toBe(2);
    expect(periodAt('2026-01-31', monthly, '2025-12-01')).toEqual({ start: '2026-01-31', end: '2026-02-27' });
    expect(periodAt('2024-02-29', { termCount: 1, termUnit: 'year' }, '2025-02-27')).toEqual({ start: '2024-02-29', end: '2025-02-27' });
  });
});

describe('term length', () => {
  it.each([
    ['2026-01-01', '2026-12-31', { count: 12, unit: 'month' }],
    ['2026-01-31', '2026-02-27', { count: 1, unit: 'month' }],
    ['2026-01-15', '2026-02-14', { count: 1, unit: 'month' }],
    ['2026-01-31', '2026-02-28', { count: 29, unit: 'day' }],
    ['2026-03-10', '2026-03-10', { count: 1, unit: 'day' }],
  ])('%s to %s is %p', (start, end, length) => {
    expect(termLengthOf(start, end)).toEqual(length);
  });

  it('renewed terms are measured from the anchor, so month ends do not drift', () => {
    const length = termLengthOf('2026-01-31', '2026-02-27');
    expect([1, 2, 3].map((terms) => termEnd('2026-01-31', length, terms))).toEqual(['2026-02-27', '2026-03-30', '2026-04-29']);
    expect(termEnd('2026-01-01', { count: 30, unit: 'day' }, 2)).toBe('2026-03-01');
  });
});

describe('proRate', () => {
  it('charges amount × days used ÷ days in the full period, rounded half away from zero once', () => {
    expect(proRate(3100n, 10, 31)).toBe(1000n);
    expect(proRate(1000n, 15, 28)).toBe(536n); // 535.714…
    expect(proRate(5n, 1, 2)).toBe(3n); // 2.5
    expect(proRate(-5n, 1, 2)).toBe(-3n);
    expect(proRate(999n, 30, 30)).toBe(999n);
  });

  it('matches an exact rational oracle: within half a unit, ties away from zero', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }),
        fc.integer({ min: 1, max: 366 }),
        fc.integer({ min: 0, max: 366 }),
        (amount, full, used) => {
          const daysUsed = Math.min(used, full);
          const result = proRate(amount, daysUsed, full);
          // |result − amount × used / full| ≤ ½, i.e. |2 × (result × full − amount × used)| ≤ full
          const twiceError = 2n * (result * BigInt(full) - amount * BigInt(daysUsed));
          expect(twiceError <= BigInt(full) && twiceError >= -BigInt(full)).toBe(true);
          // An exact half rounds away from zero: the result moves further from zero than the exact value.
          if (twiceError === BigInt(full) || twiceError === -BigInt(full)) expect(twiceError > 0n).toBe(amount > 0n);
        },
      ),
    );
  });
});

// ---------------------------------------------------------------- property: an independent day-by-day oracle

const UNITS: TermUnit[] = ['day', 'week', 'month', 'year'];
const dateArb = fc
  .date({ min: new Date('1999-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));

/** Period starts found by walking day by day with Date objects and asking, of each day, whether a period begins on it. */
function naivePeriods(anchor: string, { termCount, termUnit }: Recurrence, days: number): { start: string; end: string }[] {
  const first = new Date(`${anchor}T00:00:00Z`);
  const starts: string[] = [];
  for (let i = 0, day = new Date(first); i < days; i++, day.setUTCDate(day.getUTCDate() + 1)) {
    let begins: boolean;
    if (termUnit === 'day' || termUnit === 'week') {
      begins = i % (termCount * (termUnit === 'week' ? 7 : 1)) === 0;
    } else {
      const months = (day.getUTCFullYear() - first.getUTCFullYear()) * 12 + day.getUTCMonth() - first.getUTCMonth();
      const lastOfMonth = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 0)).getUTCDate();
      begins = months % (termCount * (termUnit === 'year' ? 12 : 1)) === 0 && day.getUTCDate() === Math.min(first.getUTCDate(), lastOfMonth);
    }
    if (begins) starts.push(day.toISOString().slice(0, 10));
  }
  // The last start only closes the period before it.
  return starts.slice(0, -1).map((start, k) => {
    const end = new Date(`${starts[k + 1]}T00:00:00Z`);
    end.setUTCDate(end.getUTCDate() - 1);
    return { start, end: end.toISOString().slice(0, 10) };
  });
}

describe('periods (property, against a day-by-day walk)', () => {
  const recurrenceArb = fc.record({ termCount: fc.integer({ min: 1, max: 3 }), termUnit: fc.constantFrom(...UNITS) });

  it('tile the calendar from the anchor with no gap or overlap, keeping the anchor day (clamped)', () => {
    fc.assert(
      fc.property(dateArb, recurrenceArb, (anchor, recurrence) => {
        const expected = naivePeriods(anchor, recurrence, recurrence.termUnit === 'year' ? 366 * 7 : 800);
        expect(expected.length).toBeGreaterThan(0);
        expect(periods(anchor, recurrence, expected.length)).toEqual(expected);
        expected.slice(1).forEach((period, k) => expect(daysBetween(expected[k].end, period.start)).toBe(1));
      }),
      { numRuns: 150 },
    );
  });

  it('periodAt finds the walked period holding any day', () => {
    fc.assert(
      fc.property(dateArb, recurrenceArb, fc.integer({ min: 0, max: 700 }), (anchor, recurrence, offset) => {
        const walked = naivePeriods(anchor, recurrence, recurrence.termUnit === 'year' ? 366 * 4 : 800);
        const day = new Date(`${anchor}T00:00:00Z`);
        day.setUTCDate(day.getUTCDate() + offset);
        const date = day.toISOString().slice(0, 10);
        const holding = walked.find((period) => period.start <= date && date <= period.end);
        if (holding !== undefined) expect(periodAt(anchor, recurrence, date)).toEqual(holding);
      }),
    );
  });
});

describe('calendar', () => {
  it('validates real dates only', () => {
    expect(validDate('2024-02-29', '/d')).toBe('2024-02-29');
    expect(() => validDate('2025-02-29', '/term/start')).toThrow(
      expect.objectContaining({ errors: [{ pointer: '/term/start', detail: 'must be a date (YYYY-MM-DD)' }] }),
    );
    expect(() => validDate('2025-1-01', '/d')).toThrow();
  });

  it('adds months across years in both directions', () => {
    expect(addMonths('2025-12-31', 2)).toBe('2026-02-28');
    expect(addMonths('2026-03-31', -1)).toBe('2026-02-28');
  });
});
