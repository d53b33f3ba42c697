import { UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { parseAdvanceBody } from './advance-body';
import { checkAdvance } from './environment-clock';

function fieldErrors(work: () => unknown): Array<{ pointer: string; detail: string }> {
  try {
    work();
  } catch (error) {
    if (error instanceof ValidationError) return [...error.errors];
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parseAdvanceBody', () => {
  it('answers the instant of `to`', () => {
    expect(parseAdvanceBody({ to: '2027-01-31T02:00:00+02:00' })).toEqual(new Date('2027-01-31T00:00:00.000Z'));
  });

  it.each([
    ['no body', undefined],
    ['null', null],
    ['an array', [{ to: '2027-01-31T00:00:00Z' }]],
    ['a string', '2027-01-31T00:00:00Z'],
    ['a number', 1],
  ])('refuses %s at the root pointer', (_label, body) => {
    expect(fieldErrors(() => parseAdvanceBody(body))).toEqual([{ pointer: '', detail: expect.stringContaining('JSON object') }]);
  });

  it.each([
    ['missing', {}, 'is required'],
    ['null', { to: null }, 'is required'],
    ['a number', { to: 1_800_000_000_000 }, expect.stringContaining('RFC 3339')],
    ['not a date-time', { to: 'tomorrow' }, expect.stringContaining('RFC 3339')],
    ['a date only', { to: '2027-01-31' }, expect.stringContaining('RFC 3339')],
  ])('refuses `to` %s at /to', (_label, body, detail) => {
    expect(fieldErrors(() => parseAdvanceBody(body))).toEqual([{ pointer: '/to', detail }]);
  });

  it('refuses every unknown property at its own pointer (escaped), together with a problem of `to`', () => {
    expect(fieldErrors(() => parseAdvanceBody({ to: 'x', 'a/b': 1, from: '2027-01-01T00:00:00Z' }))).toEqual([
      { pointer: '/a~1b', detail: UNKNOWN_PROPERTY },
      { pointer: '/from', detail: UNKNOWN_PROPERTY },
      { pointer: '/to', detail: expect.stringContaining('RFC 3339') },
    ]);
  });

  it('does not read `to` through the prototype', () => {
    const body = Object.create({ to: '2027-01-31T00:00:00Z' }) as object;
    expect(fieldErrors(() => parseAdvanceBody(body))).toEqual([{ pointer: '/to', detail: 'is required' }]);
  });
});

describe('checkAdvance', () => {
  const current = new Date('2026-02-28T10:00:00.000Z');

  it('allows the same instant and any instant up to five calendar years ahead', () => {
    expect(() => checkAdvance(current, new Date(current))).not.toThrow();
    expect(() => checkAdvance(current, new Date('2031-02-28T10:00:00.000Z'))).not.toThrow();
  });

  it('refuses going backwards, by even a millisecond, at /to', () => {
    expect(fieldErrors(() => checkAdvance(current, new Date(current.getTime() - 1)))).toEqual([
      { pointer: '/to', detail: expect.stringContaining('only moves forward') },
    ]);
  });

  it('refuses more than five calendar years ahead at /to', () => {
    expect(fieldErrors(() => checkAdvance(current, new Date('2031-02-28T10:00:00.001Z')))).toEqual([
      { pointer: '/to', detail: expect.stringContaining('at most 5 years') },
    ]);
  });

  it('counts calendar years from February 29 as ending on March 1', () => {
    const leap = new Date('2028-02-29T00:00:00.000Z');
    expect(() => checkAdvance(leap, new Date('2033-03-01T00:00:00.000Z'))).not.toThrow();
    expect(() => checkAdvance(leap, new Date('2033-03-01T00:00:00.001Z'))).toThrow(ValidationError);
  });
});
