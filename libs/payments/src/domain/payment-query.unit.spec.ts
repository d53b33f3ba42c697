import fc from 'fast-check';
import { SUPPORTED_CURRENCIES, ValidationError } from '@billing/shared-kernel';
import { FILTER_FIELDS, FILTER_OPS, MAX_FILTERS, OPS_BY_FIELD, PaymentFilter, parsePaymentFilter, parsePaymentQuery, parseTimestamp } from './payment-query';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

function refusal(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}
const filterError = (filter: string) => refusal(() => parsePaymentQuery({ filter })).errors;

describe('parsePaymentQuery', () => {
  it('defaults: no filters, by id ascending, 20 per page, no token', () => {
    expect(parsePaymentQuery({})).toEqual({ filters: [], orderBy: { field: 'id', descending: false }, limit: 20 });
    expect(parsePaymentQuery({ orderBy: '', limit: '', pageToken: '' })).toEqual({ filters: [], orderBy: { field: 'id', descending: false }, limit: 20 });
  });

  it('parses the example of the issue', () => {
    expect(parsePaymentQuery({ filter: ['status eq succeeded', 'amount ge 1000'], orderBy: '-CreatedAt', limit: '100', pageToken: 'abc' })).toEqual({
      filters: [
        { field: 'status', op: 'eq', value: 'succeeded' },
        { field: 'amount', op: 'ge', value: 1000 },
      ],
      orderBy: { field: 'createdAt', descending: true },
      limit: 100,
      pageToken: 'abc',
    });
  });

  it('reads a single filter as filter 0', () => {
    expect(filterError('status eq paid')).toEqual([{ pointer: '/query/filter/0', detail: expect.any(String) }]);
  });

  it('reports every bad parameter at its own pointer, filters by position', () => {
    const error = refusal(() => parsePaymentQuery({ filter: ['status eq pending', 'amount gt x', 'colour eq red'], orderBy: 'Name', limit: '0' }));
    expect(error.errors.map((e) => e.pointer)).toEqual(['/query/filter/1', '/query/filter/2', '/query/orderBy', '/query/limit']);
    expect(error.message).toBe('The query has 4 invalid parameters.');
  });

  it(`refuses more than ${MAX_FILTERS} filters`, () => {
    const filter = Array.from({ length: MAX_FILTERS + 1 }, () => 'status eq pending');
    expect(refusal(() => parsePaymentQuery({ filter })).errors).toEqual([{ pointer: '/query/filter', detail: 'at most 20 filters are allowed, got 21' }]);
    expect(parsePaymentQuery({ filter: filter.slice(1) }).filters).toHaveLength(MAX_FILTERS);
  });

  describe('orderBy', () => {
    it.each<[string, string, boolean]>([
      ['Id', 'id', false],
      ['-Id', 'id', true],
      ['CreatedAt', 'createdAt', false],
      ['createdAt', 'createdAt', false],
      ['-Amount', 'amount', true],
      ['amount', 'amount', false],
    ])('%s', (orderBy, field, descending) => {
      expect(parsePaymentQuery({ orderBy }).orderBy).toEqual({ field, descending });
    });

    it.each(['Status', '--Id', '+Id', '-', 'Id '])('refuses %p, listing the choices', (orderBy) => {
      expect(refusal(() => parsePaymentQuery({ orderBy })).errors).toEqual([
        { pointer: '/query/orderBy', detail: expect.stringMatching(/^must be one of Id, CreatedAt, Amount, optionally prefixed with - for descending/) },
      ]);
    });
  });

  describe('limit', () => {
    it.each([
      ['1', 1],
      ['100', 100],
      ['007', 7],
    ])('%s', (limit, expected) => {
      expect(parsePaymentQuery({ limit }).limit).toBe(expected);
    });

    it.each(['0', '101', '1.5', '1e1', ' 5', '0x10', '-1', 'ten', '1000000'])('refuses %p', (limit) => {
      expect(refusal(() => parsePaymentQuery({ limit })).errors).toEqual([
        { pointer: '/query/limit', detail: expect.stringMatching(/^must be an integer from 1 to 100/) },
      ]);
    });
  });

  it.each(['orderBy', 'limit', 'pageToken'])('refuses %s given twice', (name) => {
    expect(refusal(() => parsePaymentQuery({ [name]: ['1', '2'] })).errors).toEqual([{ pointer: `/query/${name}`, detail: 'must be given at most once' }]);
  });
});

describe('filters', () => {
  it.each<[string, PaymentFilter]>([
    ['status ne failed', { field: 'status', op: 'ne', value: 'failed' }],
    [`invoiceId eq ${UUID.toUpperCase()}`, { field: 'invoiceId', op: 'eq', value: UUID }],
    [`customerId ne ${UUID}`, { field: 'customerId', op: 'ne', value: UUID }],
    ['provider eq manual', { field: 'provider', op: 'eq', value: 'manual' }],
    ['currency eq eur', { field: 'currency', op: 'eq', value: 'EUR' }],
    ['amount lt -5', { field: 'amount', op: 'lt', value: -5 }],
    ['amount le 9007199254740991', { field: 'amount', op: 'le', value: Number.MAX_SAFE_INTEGER }],
    ['createdAt gt 2025-03-01', { field: 'createdAt', op: 'gt', value: new Date('2025-03-01T00:00:00.000Z') }],
    ['createdAt ge 2025-03-01T10:00:00.5+02:00', { field: 'createdAt', op: 'ge', value: new Date('2025-03-01T08:00:00.500Z') }],
  ])('%s', (text, expected) => {
    expect(parsePaymentFilter(text, '/query/filter/0')).toEqual(expected);
  });

  it.each(['', 'status', 'status eq', 'status eq ', ' status eq pending', 'status  eq pending', 'statuseqpending'])('refuses the shape %p', (text) => {
    expect(filterError(text)).toEqual([{ pointer: '/query/filter/0', detail: expect.stringMatching(/^expected `field op value` separated by single spaces/) }]);
  });

  it('lists the fields for an unknown field', () => {
    expect(filterError('Status eq pending')[0].detail).toBe(
      'unknown field "Status": expected one of status, invoiceId, customerId, provider, currency, amount, createdAt',
    );
  });

  it('lists the operators for an unknown operator', () => {
    expect(filterError('amount >= 5')[0].detail).toBe('unknown operator ">=": expected one of eq, ne, gt, ge, lt, le');
  });

  it.each(['status', 'invoiceId', 'customerId', 'provider', 'currency'])('refuses ordering operators on %s', (field) => {
    expect(filterError(`${field} gt x`)[0].detail).toBe(`operator gt does not apply to ${field}: use eq or ne`);
  });

  it.each<[string, string]>([
    ['status eq paid', 'bad value for status: expected one of pending, requires_action, succeeded, failed, disputed; got "paid"'],
    ['status eq pending ', 'bad value for status: expected one of pending, requires_action, succeeded, failed, disputed; got "pending "'],
    ['invoiceId eq 42', 'bad value for invoiceId: expected a uuid; got "42"'],
    ['provider eq adyen', 'bad value for provider: expected one of sandbox, manual, stripe; got "adyen"'],
    ['currency eq XXX', 'bad value for currency: expected a supported ISO 4217 currency code, e.g. EUR; got "XXX"'],
    ['amount eq 1.5', 'bad value for amount: expected an integer number of minor units within ±9007199254740991; got "1.5"'],
    ['amount eq 9007199254740992', 'bad value for amount: expected an integer number of minor units within ±9007199254740991; got "9007199254740992"'],
  ])('%s', (text, detail) => {
    expect(filterError(text)).toEqual([{ pointer: '/query/filter/0', detail }]);
  });

  it.each([
    '2025-02-29',
    '2025-13-01',
    '2025-03-01T24:00:00Z',
    '2025-03-01T10:00:60Z',
    '2025-03-01T10:00:00',
    '2025-03-01T10:00:00.1234Z',
    '2025-03-01T10:00:00 02:00',
    '2025-03-01T10:00:00+24:00',
    '2025-03-01t10:00:00z',
    '1740823200000',
  ])('refuses createdAt %p, saying what is expected', (value) => {
    expect(filterError(`createdAt ge ${value}`)[0].detail).toMatch(
      /^bad value for createdAt: expected a date \(2025-03-01\) or an RFC 3339 date-time .*send \+ as %2B/,
    );
  });

  it('cuts a long value short and escapes control characters in the detail', () => {
    const detail = filterError(`status eq ${'x'.repeat(100)}\n`)[0].detail;
    expect(detail).toContain(`"${'x'.repeat(60)}…"`);
    expect(detail).not.toContain('\n');
  });
});

describe('parseTimestamp', () => {
  it('keeps years below 100 as they are', () => {
    expect(parseTimestamp('0042-01-01T00:00:00Z')?.getUTCFullYear()).toBe(42);
  });

  it('accepts leap days', () => {
    expect(parseTimestamp('2024-02-29')).toEqual(new Date('2024-02-29T00:00:00.000Z'));
  });
});

// ---------------------------------------------------------------- properties

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** Oracle formatting: the instant shifted by the offset, printed from its UTC fields (independent of the parser's regex and arithmetic). */
function formatInstant(date: Date, offsetMinutes: number): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const zone =
    offsetMinutes === 0 ? 'Z' : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  return `${local.toISOString().slice(0, 23)}${zone}`;
}

const instant = fc.date({ min: new Date('1000-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true });
const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-fA-F]{${length}}$`));
const uuid = fc.tuple(hex(8), hex(4), hex(4), hex(4), hex(12)).map((parts) => parts.join('-'));
const eqOp = fc.constantFrom<'eq' | 'ne'>('eq', 'ne');
const anyOp = fc.constantFrom(...FILTER_OPS);

/** [text as a client would send it, the filter it must parse to] */
const pair = (text: string, filter: PaymentFilter): [string, PaymentFilter] => [text, filter];
const validFilter: fc.Arbitrary<[string, PaymentFilter]> = fc.oneof(
  fc
    .tuple(eqOp, fc.constantFrom('pending', 'succeeded', 'failed' as const))
    .map(([op, value]) => pair(`status ${op} ${value}`, { field: 'status', op, value })),
  fc
    .tuple(fc.constantFrom('invoiceId', 'customerId' as const), eqOp, uuid)
    .map(([field, op, value]) => pair(`${field} ${op} ${value}`, { field, op, value: value.toLowerCase() })),
  fc.tuple(eqOp, fc.constantFrom('sandbox', 'manual' as const)).map(([op, value]) => pair(`provider ${op} ${value}`, { field: 'provider', op, value })),
  fc
    .tuple(eqOp, fc.constantFrom(...Object.keys(SUPPORTED_CURRENCIES)), fc.boolean())
    .map(([op, code, upper]) => pair(`currency ${op} ${upper ? code.toUpperCase() : code}`, { field: 'currency', op, value: code.toUpperCase() })),
  fc.tuple(anyOp, fc.maxSafeInteger()).map(([op, value]) => pair(`amount ${op} ${value}`, { field: 'amount', op, value })),
  fc
    .tuple(anyOp, instant, fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }))
    .map(([op, value, offset]) => pair(`createdAt ${op} ${formatInstant(value, offset)}`, { field: 'createdAt', op, value })),
);

describe('properties', () => {
  it('valid filters parse to what they say, in any number and order', () => {
    fc.assert(
      fc.property(fc.array(validFilter, { maxLength: MAX_FILTERS }), (pairs) => {
        const filter = pairs.length === 1 ? pairs[0][0] : pairs.map(([text]) => text);
        expect(parsePaymentQuery({ filter }).filters).toEqual(pairs.map(([, expected]) => expected));
      }),
    );
  });

  it('the ops a field accepts are exactly the ones it lists', () => {
    const valid: Record<string, string> = {
      status: 'pending',
      invoiceId: UUID,
      customerId: UUID,
      provider: 'sandbox',
      currency: 'EUR',
      amount: '1',
      createdAt: '2025-03-01',
    };
    for (const field of FILTER_FIELDS) {
      for (const op of FILTER_OPS) {
        const parse = () => parsePaymentFilter(`${field} ${op} ${valid[field]}`, '/p');
        if (OPS_BY_FIELD[field].includes(op)) expect(parse()).toMatchObject({ field, op });
        else expect(refusal(parse).errors[0].detail).toMatch(/does not apply/);
      }
    }
  });

  const vocabulary = fc.constantFrom(...FILTER_FIELDS, ...FILTER_OPS, ' ', '  ', '-', '2025-03-01', 'T10:00:00Z', UUID, 'EUR', '1e3', '\u0000', '🙂', '%2B');
  const messy = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.array(vocabulary, { maxLength: 6 }).map((parts) => parts.join('')),
  );
  const value = fc.oneof(messy, fc.array(messy, { maxLength: 4 }), fc.constant(undefined), fc.integer(), fc.constant(null));

  it('random queries are parsed or refused with a ValidationError, never anything else', () => {
    fc.assert(
      fc.property(fc.record({ filter: value, orderBy: value, limit: value, pageToken: value }, { requiredKeys: [] }), (query) => {
        try {
          parsePaymentQuery(query);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          const { errors } = error as ValidationError;
          expect(errors.length).toBeGreaterThan(0);
          for (const e of errors) expect(e.pointer).toMatch(/^\/query\/(filter(\/\d+)?|orderBy|limit|pageToken)$/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
