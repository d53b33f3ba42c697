import { parseRetryAfter } from './retry-after';

describe('parseRetryAfter', () => {
  const now = new Date('2026-01-15T10:00:00.000Z');

  it.each<[string | undefined, number | undefined]>([
    ['120', 120],
    [' 0 ', 0],
    ['Thu, 15 Jan 2026 10:05:00 GMT', 300],
    ['Thu, 15 Jan 2026 09:00:00 GMT', 0],
    [undefined, undefined],
    ['', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
  ])('%p -> %p', (header, seconds) => {
    expect(parseRetryAfter(header, now)).toBe(seconds);
  });

  it('uses the first of repeated headers', () => {
    expect(parseRetryAfter(['30', '60'], now)).toBe(30);
  });
});
