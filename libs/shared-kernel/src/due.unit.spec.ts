import { isDueBy } from './due';

describe('isDueBy', () => {
  const now = new Date('2026-03-12T00:00:00.000Z');
  it.each<[string, Date | string, boolean]>([
    ['a millisecond before now', '2026-03-11T23:59:59.999Z', true],
    ['exactly now (a clock landing on the instant)', '2026-03-12T00:00:00.000Z', true],
    ['exactly now, as a Date', new Date('2026-03-12T00:00:00.000Z'), true],
    ['a millisecond after now', '2026-03-12T00:00:00.001Z', false],
  ])('work set for %s (%p): due %p', (_, at, due) => {
    expect(isDueBy(at, now)).toBe(due);
  });
});
