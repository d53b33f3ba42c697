import fc from 'fast-check';
import { localDateOf, startOfDayIn, validTimeZone } from './time-zone';

const at = (date: string, timeZone: string) => startOfDayIn(date, timeZone).toISOString();

describe('startOfDayIn: local midnight as a UTC instant', () => {
  it('UTC', () => {
    expect(at('2026-01-01', 'UTC')).toBe('2026-01-01T00:00:00.000Z');
  });

  it('Europe/Helsinki: UTC+2 in winter, UTC+3 in summer, across the changes of 2026-03-29 and 2026-10-25', () => {
    expect(at('2026-03-28', 'Europe/Helsinki')).toBe('2026-03-27T22:00:00.000Z');
    // Clocks go forward at 03:00 that day: its midnight is still UTC+2.
    expect(at('2026-03-29', 'Europe/Helsinki')).toBe('2026-03-28T22:00:00.000Z');
    expect(at('2026-03-30', 'Europe/Helsinki')).toBe('2026-03-29T21:00:00.000Z');
    // Clocks go back at 04:00 that day: its midnight is still UTC+3.
    expect(at('2026-10-25', 'Europe/Helsinki')).toBe('2026-10-24T21:00:00.000Z');
    expect(at('2026-10-26', 'Europe/Helsinki')).toBe('2026-10-25T22:00:00.000Z');
  });

  it('America/New_York: UTC−5, UTC−4 from 2026-03-08 to 2026-11-01', () => {
    expect(at('2026-03-08', 'America/New_York')).toBe('2026-03-08T05:00:00.000Z');
    expect(at('2026-03-09', 'America/New_York')).toBe('2026-03-09T04:00:00.000Z');
    expect(at('2026-11-01', 'America/New_York')).toBe('2026-11-01T04:00:00.000Z');
    expect(at('2026-11-02', 'America/New_York')).toBe('2026-11-02T05:00:00.000Z');
  });

  it('asked again, answers a Date of its own with the same instant (a caller changing it changes no later answer)', () => {
    const first = startOfDayIn('2026-03-29', 'Europe/Helsinki');
    first.setTime(0);
    const again = startOfDayIn('2026-03-29', 'Europe/Helsinki');
    expect(again).not.toBe(first);
    expect(again.toISOString()).toBe('2026-03-28T22:00:00.000Z');
  });

  it('Pacific/Kiritimati (UTC+14): the day begins the previous day in UTC', () => {
    expect(at('2026-01-01', 'Pacific/Kiritimati')).toBe('2025-12-31T10:00:00.000Z');
  });

  it('where midnight does not exist, the first instant of the day (America/Havana jumps from 00:00 to 01:00)', () => {
    expect(at('2026-03-08', 'America/Havana')).toBe('2026-03-08T05:00:00.000Z');
    expect(at('2026-09-06', 'America/Santiago')).toBe('2026-09-06T04:00:00.000Z');
  });

  it('where midnight happens twice (Havana falls back from 01:00 to 00:00), the first', () => {
    expect(at('2026-11-01', 'America/Havana')).toBe('2026-11-01T04:00:00.000Z');
  });
});

describe('localDateOf', () => {
  it('is the date on the wall clock of the zone', () => {
    expect(localDateOf(new Date('2026-03-28T21:59:59Z'), 'Europe/Helsinki')).toBe('2026-03-28');
    expect(localDateOf(new Date('2026-03-28T22:00:00Z'), 'Europe/Helsinki')).toBe('2026-03-29');
    expect(localDateOf(new Date('2025-12-31T10:00:00Z'), 'Pacific/Kiritimati')).toBe('2026-01-01');
  });
});

describe('validTimeZone', () => {
  it('answers the canonical IANA name', () => {
    expect(validTimeZone('europe/helsinki', '/timeZone')).toBe('Europe/Helsinki');
    expect(validTimeZone('UTC', '/timeZone')).toBe('UTC');
  });

  it.each(['Mars/Olympus_Mons', '+02:00', '', 42, null])('rejects %p at its pointer', (value) => {
    expect(() => validTimeZone(value, '/timeZone')).toThrow(
      expect.objectContaining({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/timeZone' })] }),
    );
  });
});

describe('startOfDayIn (property, against a minute-by-minute scan)', () => {
  const ZONES = [
    'UTC',
    'Europe/Helsinki',
    'America/New_York',
    'Pacific/Kiritimati',
    'America/Havana',
    'America/Santiago',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'Pacific/Chatham',
    'Asia/Tehran',
  ];
  const MINUTE = 60_000;

  /** The first minute whose wall-clock date (en-CA formats YYYY-MM-DD) is `date`, found by scanning from 15 hours before UTC midnight. */
  function scan(date: string, timeZone: string): string {
    const wallDate = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    const utcMidnight = Date.parse(`${date}T00:00:00Z`);
    let t = utcMidnight - 15 * 60 * MINUTE;
    while (wallDate.format(t) < date) t += 15 * MINUTE;
    for (let back = t - MINUTE; wallDate.format(back) === date; back -= MINUTE) t = back;
    return new Date(t).toISOString();
  }

  it('finds the first instant of the local date', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom(...ZONES),
        (day, timeZone) => {
          const date = day.toISOString().slice(0, 10);
          expect(at(date, timeZone)).toBe(scan(date, timeZone));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on the days clocks change', () => {
    for (const [date, timeZone] of [
      ['2026-03-29', 'Europe/Helsinki'],
      ['2026-10-25', 'Europe/Helsinki'],
      ['2026-03-08', 'America/Havana'],
      ['2026-11-01', 'America/Havana'],
      ['2026-04-05', 'America/Santiago'],
      ['2026-09-06', 'America/Santiago'],
      ['2026-04-05', 'Australia/Lord_Howe'],
      ['2026-10-04', 'Australia/Lord_Howe'],
    ]) {
      expect(at(date, timeZone)).toBe(scan(date, timeZone));
    }
  });
});
