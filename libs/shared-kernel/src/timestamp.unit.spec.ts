import { parseDateTime, parseTimestamp } from './timestamp';

describe('parseDateTime (RFC 3339 date-time)', () => {
  it.each([
    ['2027-01-31T00:00:00Z', '2027-01-31T00:00:00.000Z'],
    ['2027-01-31t00:00:00z', '2027-01-31T00:00:00.000Z'],
    ['2027-01-31T02:30:00+02:30', '2027-01-31T00:00:00.000Z'],
    ['2027-01-30T19:00:00-05:00', '2027-01-31T00:00:00.000Z'],
    ['2027-01-31T00:00:00.5Z', '2027-01-31T00:00:00.500Z'],
    ['2027-01-31T00:00:00.123456789Z', '2027-01-31T00:00:00.123Z'],
    ['2028-02-29T23:59:59Z', '2028-02-29T23:59:59.000Z'],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseDateTime(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ['a date only', '2027-01-31'],
    ['no offset (a local time)', '2027-01-31T00:00:00'],
    ['a space for T', '2027-01-31 00:00:00Z'],
    ['February 30', '2027-02-30T00:00:00Z'],
    ['February 29 of a common year', '2027-02-29T00:00:00Z'],
    ['month 13', '2027-13-01T00:00:00Z'],
    ['day 0', '2027-01-00T00:00:00Z'],
    ['hour 24', '2027-01-31T24:00:00Z'],
    ['minute 60', '2027-01-31T00:60:00Z'],
    ['a leap second', '2027-01-31T23:59:60Z'],
    ['an offset of 24 hours', '2027-01-31T00:00:00+24:00'],
    ['an offset without colon', '2027-01-31T00:00:00+0200'],
    ['a five-digit year', '12027-01-31T00:00:00Z'],
    ['an empty fraction', '2027-01-31T00:00:00.Z'],
    ['trailing text', '2027-01-31T00:00:00Z '],
    ['a timestamp', '1800000000'],
  ])('refuses %s', (_label, text) => {
    expect(parseDateTime(text)).toBeNull();
  });
});

describe('parseTimestamp (a date or an RFC 3339 date-time, for filters)', () => {
  it.each([
    ['2026-02-28', '2026-02-28T00:00:00.000Z'],
    ['2026-02-28T10:00:00.123+01:00', '2026-02-28T09:00:00.123Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each([['2026-02-30'], ['2026-02-30T00:00:00Z'], ['2026-01-01T24:00:00Z'], ['2026-01-01T00:00:00.1234Z'], ['0000-01-01']])('refuses %s', (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });
});
