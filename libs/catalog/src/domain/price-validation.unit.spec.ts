import fc from 'fast-check';
import { FieldError, ValidationError } from '@billing/shared-kernel';
import { createPriceBodyArb } from '../../../../test/catalog/catalog.arbitraries';
import { PriceShape, validateCreatePrice, validateUpdatePrice } from './price-validation';

/** The field errors a call throws; fails the test when it does not throw a ValidationError. */
function errorsOf(fn: () => unknown): FieldError[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('validation-failed');
    return [...(error as ValidationError).errors];
  }
  throw new Error('expected a ValidationError');
}

const pointersOf = (fn: () => unknown) => errorsOf(fn).map((e) => e.pointer);
const detailAt = (fn: () => unknown, pointer: string) => errorsOf(fn).find((e) => e.pointer === pointer)?.detail;

const feeOneTime = { name: 'Setup', priceModel: 'fee', purchase: 'one_time', pricing: { eur: { unitAmount: 1500 } } };
const monthly = { ...feeOneTime, purchase: 'recurring', termCount: 1, termUnit: 'month' };
const tiers = [
  { upTo: 10, unitAmount: 500, flatAmount: 0 },
  { upTo: null, unitAmount: 400 },
];
const create =
  (patch: Record<string, unknown>, base: Record<string, unknown> = feeOneTime) =>
  () =>
    validateCreatePrice({ ...base, ...patch });
const emoji = '😀'; // one code point, two UTF-16 units

describe('validateCreatePrice', () => {
  describe('given a valid body', () => {
    it('when minimal one_time fee, then optional fields get their defaults', () => {
      expect(validateCreatePrice(feeOneTime)).toEqual({
        name: 'Setup',
        description: null,
        priceModel: 'fee',
        purchase: 'one_time',
        termCount: null,
        termUnit: null,
        billingTiming: 'advance',
        pricing: { eur: { unitAmount: 1500 } },
        productId: null,
      });
    });

    it('when recurring with every field, then all are kept, the productId lowercased and currencies sorted', () => {
      const input = validateCreatePrice({
        ...monthly,
        description: 'internal',
        billingTiming: 'arrears',
        productId: 'A1B2C3D4-0000-4000-8000-00000000000F',
        pricing: { usd: { unitAmount: 1 }, eur: { unitAmount: 2 } },
      });
      expect(input).toMatchObject({ termCount: 1, termUnit: 'month', description: 'internal', billingTiming: 'arrears' });
      expect(input.productId).toBe('a1b2c3d4-0000-4000-8000-00000000000f');
      expect(Object.keys(input.pricing)).toEqual(['eur', 'usd']);
    });

    it('when optional fields are null, then they count as absent', () => {
      const input = validateCreatePrice({ ...feeOneTime, description: null, billingTiming: null, productId: null, termCount: null, termUnit: null });
      expect(input).toMatchObject({ description: null, billingTiming: 'advance', productId: null, termCount: null, termUnit: null });
    });
  });

  describe('given a body that is not a JSON object', () => {
    it.each([[null], [[]], ['price'], [42], [undefined]])('when %p, then one error at the root', (body) => {
      expect(errorsOf(() => validateCreatePrice(body))).toEqual([{ pointer: '', detail: 'the request body must be a JSON object' }]);
    });
  });

  describe('required fields', () => {
    it('when the body is empty, then name, priceModel, purchase and pricing are each reported', () => {
      expect(errorsOf(() => validateCreatePrice({}))).toEqual(
        expect.arrayContaining(['/name', '/priceModel', '/purchase', '/pricing'].map((pointer) => ({ pointer, detail: 'is required' }))),
      );
      expect(pointersOf(() => validateCreatePrice({}))).toHaveLength(4);
    });

    it.each(['name', 'priceModel', 'purchase', 'pricing'])('when %s is null, then it is required', (field) => {
      expect(detailAt(create({ [field]: null }), `/${field}`)).toBe('is required');
    });
  });

  describe('name (1 to 250 code points)', () => {
    it.each([
      ['1 character', 'a'],
      ['250 characters', 'a'.repeat(250)],
      ['250 emoji (500 UTF-16 units)', emoji.repeat(250)],
    ])('when %s, then accepted', (_, name) => {
      expect(validateCreatePrice({ ...feeOneTime, name }).name).toBe(name);
    });

    it.each([
      ['empty', '', 'must be 1 to 250 characters long'],
      ['251 characters', 'a'.repeat(251), 'must be 1 to 250 characters long'],
      ['251 emoji', emoji.repeat(251), 'must be 1 to 250 characters long'],
      ['a number', 5, 'must be a string'],
    ])('when %s, then rejected', (_, name, detail) => {
      expect(errorsOf(create({ name }))).toEqual([{ pointer: '/name', detail }]);
    });
  });

  describe('description (at most 4000 code points, optional)', () => {
    it.each([[''], ['a'.repeat(4000)], [emoji.repeat(4000)]])('when length %#, then accepted', (description) => {
      expect(validateCreatePrice({ ...feeOneTime, description }).description).toBe(description);
    });

    it.each([
      ['a'.repeat(4001), 'must be at most 4000 characters long'],
      [emoji.repeat(4001), 'must be at most 4000 characters long'],
      [['x'], 'must be a string'],
    ])('when invalid %#, then rejected', (description, detail) => {
      expect(errorsOf(create({ description }))).toEqual([{ pointer: '/description', detail }]);
    });
  });

  describe('enums', () => {
    it.each([
      ['priceModel', 'tiered'],
      ['priceModel', 'FEE'],
      ['purchase', 'once'],
      ['billingTiming', 'later'],
      ['billingTiming', 1],
    ])('when %s is %p, then rejected listing the allowed values', (field, value) => {
      expect(detailAt(create({ [field]: value }), `/${field}`)).toMatch(/^must be one of: /);
    });

    it.each(['advance', 'arrears'])('when billingTiming is %s, then accepted', (billingTiming) => {
      expect(validateCreatePrice({ ...feeOneTime, billingTiming }).billingTiming).toBe(billingTiming);
    });

    it('when billingTiming is event_based with a metricCode on a recurring price, then accepted with the metric', () => {
      expect(validateCreatePrice({ ...monthly, billingTiming: 'event_based', metricCode: 'api_calls' })).toMatchObject({
        billingTiming: 'event_based',
        metricCode: 'api_calls',
      });
    });

    it('when billingTiming is event_based without metricCode, or with a malformed one, then rejected at /metricCode', () => {
      expect(detailAt(create({ ...monthly, billingTiming: 'event_based' }), '/metricCode')).toBe('is required for an event_based price');
      expect(detailAt(create({ ...monthly, billingTiming: 'event_based', metricCode: 'has space' }), '/metricCode')).toMatch(/billable metric code/);
    });

    it('when billingTiming is event_based on a one_time price, then rejected at /billingTiming', () => {
      expect(detailAt(create({ ...feeOneTime, billingTiming: 'event_based', metricCode: 'api_calls' }), '/billingTiming')).toMatch(/recurring/);
    });

    it('when a price that is not event_based names a metricCode, then rejected at /metricCode', () => {
      expect(detailAt(create({ ...monthly, billingTiming: 'arrears', metricCode: 'api_calls' }), '/metricCode')).toMatch(/only allowed/);
    });

    it.each(['day', 'week', 'month', 'year'])('when termUnit is %s, then accepted', (termUnit) => {
      expect(validateCreatePrice({ ...monthly, termUnit }).termUnit).toBe(termUnit);
    });

    it('when termUnit is not a unit, then rejected', () => {
      expect(errorsOf(create({ termUnit: 'hour' }, monthly))).toEqual([{ pointer: '/termUnit', detail: 'must be one of: day, week, month, year' }]);
    });
  });

  describe('term (recurring only)', () => {
    it.each([1, 10000])('when termCount is %p, then accepted', (termCount) => {
      expect(validateCreatePrice({ ...monthly, termCount }).termCount).toBe(termCount);
    });

    it.each([0, 10001, 1.5, -1, '12', true])('when termCount is %p, then rejected', (termCount) => {
      expect(errorsOf(create({ termCount }, monthly))).toEqual([{ pointer: '/termCount', detail: 'must be an integer from 1 to 10000' }]);
    });

    it('when recurring without a term, then termCount and termUnit are required', () => {
      expect(errorsOf(create({ termCount: undefined, termUnit: null }, monthly))).toEqual([
        { pointer: '/termCount', detail: 'is required for a recurring price' },
        { pointer: '/termUnit', detail: 'is required for a recurring price' },
      ]);
    });

    it('when one_time with a term, then both are rejected', () => {
      expect(errorsOf(create({ termCount: 1, termUnit: 'month' }))).toEqual([
        { pointer: '/termCount', detail: 'is not allowed for a one_time price' },
        { pointer: '/termUnit', detail: 'is not allowed for a one_time price' },
      ]);
    });

    it('when purchase is invalid, then a well-formed term is not reported but a malformed one is', () => {
      expect(pointersOf(create({ purchase: 'x' }, monthly))).toEqual(['/purchase']);
      expect(pointersOf(create({ purchase: 'x', termCount: 0, termUnit: 'hour' }, monthly))).toEqual(['/purchase', '/termCount', '/termUnit']);
    });
  });

  describe('productId', () => {
    it.each(['abc', 'a1b2c3d4-0000-4000-8000-00000000000', 42])('when %p, then it must be a UUID', (productId) => {
      expect(errorsOf(create({ productId }))).toEqual([{ pointer: '/productId', detail: 'must be a UUID' }]);
    });
  });

  describe('unknown and read-only properties', () => {
    it('when an unknown property is sent, then it is rejected at its pointer', () => {
      expect(errorsOf(create({ colour: 'red' }))).toEqual([{ pointer: '/colour', detail: 'unknown property: not accepted here' }]);
    });

    it.each(['id', 'archived', 'archivedAt', 'createdAt', 'updatedAt'])('when read-only %s is sent, then it is rejected as read-only', (field) => {
      expect(errorsOf(create({ [field]: null }))).toEqual([{ pointer: `/${field}`, detail: 'is read-only' }]);
    });

    it('when a key holds ~ or /, then the pointer escapes them (RFC 6901)', () => {
      expect(pointersOf(create({ 'a/b': 1, 'c~d': 1 }))).toEqual(['/a~1b', '/c~0d']);
    });

    it('when the JSON has __proto__ or constructor keys, then they are unknown properties, not prototype tricks', () => {
      const body = JSON.parse('{"__proto__": {"name": "x"}, "constructor": 1}');
      expect(pointersOf(() => validateCreatePrice({ ...body, ...feeOneTime }))).toEqual(['/__proto__', '/constructor']);
    });
  });

  it('when many fields are wrong, then every error is reported at once', () => {
    const error = (() => {
      try {
        validateCreatePrice({ name: '', priceModel: 'x', purchase: 'recurring', termCount: 0, pricing: { EUR: {} }, extra: 1 });
      } catch (e) {
        return e as ValidationError;
      }
    })();
    expect(error?.message).toBe('The price is invalid');
    expect(error?.errors.map((e) => e.pointer)).toEqual(['/extra', '/name', '/priceModel', '/pricing/EUR', '/termCount', '/termUnit']);
  });

  describe('pricing dictionary', () => {
    it.each([
      ['an array', [], 'must be an object keyed by currency code'],
      ['a string', 'eur', 'must be an object keyed by currency code'],
      ['empty', {}, 'must contain at least one currency'],
    ])('when %s, then rejected at /pricing', (_, pricing, detail) => {
      expect(errorsOf(create({ pricing }))).toEqual([{ pointer: '/pricing', detail }]);
    });

    it('when a key is an uppercase supported code, then the detail says to use lowercase', () => {
      expect(errorsOf(create({ pricing: { EUR: { unitAmount: 1 } } }))).toEqual([
        { pointer: '/pricing/EUR', detail: "currency codes must be lowercase: use 'eur'" },
      ]);
    });

    it.each(['xyz', 'eu', 'xau', 'euro'])('when the key %p is not a supported currency, then rejected', (key) => {
      expect(errorsOf(create({ pricing: { eur: { unitAmount: 1 }, [key]: { unitAmount: 1 } } }))).toEqual([
        { pointer: `/pricing/${key}`, detail: `'${key}' is not a supported ISO 4217 currency code` },
      ]);
    });

    it('when the priceModel is invalid, then only the currency keys are checked', () => {
      expect(pointersOf(create({ priceModel: 'x', pricing: { EUR: 'nonsense', usd: 'nonsense' } }))).toEqual(['/priceModel', '/pricing/EUR']);
    });

    it('when an entry is not an object, then rejected at the entry', () => {
      expect(errorsOf(create({ pricing: { eur: 1500 } }))).toEqual([
        { pointer: '/pricing/eur', detail: 'must be an object (the fee pricing of one currency)' },
      ]);
    });
  });

  describe('fee entries', () => {
    const fee = (entry: unknown) => create({ pricing: { eur: entry } });
    it.each([0, 1500, Number.MAX_SAFE_INTEGER])('when unitAmount is %p, then accepted', (unitAmount) => {
      expect(validateCreatePrice({ ...feeOneTime, pricing: { eur: { unitAmount } } }).pricing).toEqual({ eur: { unitAmount } });
    });

    it.each([-1, 1.5, '1500', Number.MAX_SAFE_INTEGER + 1, null])('when unitAmount is %p, then rejected', (unitAmount) => {
      expect(pointersOf(fee({ unitAmount }))).toEqual(['/pricing/eur/unitAmount']);
    });

    it('when unitAmount is missing and an unknown member is present, then both are reported', () => {
      expect(errorsOf(fee({ amount: 1500 }))).toEqual([
        { pointer: '/pricing/eur/amount', detail: 'unknown property: not accepted here' },
        { pointer: '/pricing/eur/unitAmount', detail: 'is required' },
      ]);
    });

    it('when the amount is out of range, then the detail names the range', () => {
      expect(detailAt(fee({ unitAmount: -5 }), '/pricing/eur/unitAmount')).toBe('must be a whole amount in minor units from 0 to 9007199254740991');
    });
  });

  describe('package entries', () => {
    const pkg = (entry: unknown) => create({ priceModel: 'package', pricing: { eur: entry } });
    it('when packageSize >= 1 and packageAmount >= 0, then accepted', () => {
      expect(pkg({ packageSize: 1, packageAmount: 0 })().pricing).toEqual({ eur: { packageSize: 1, packageAmount: 0 } });
      expect(pkg({ packageSize: 10, packageAmount: 5000 })().pricing).toEqual({ eur: { packageSize: 10, packageAmount: 5000 } });
    });

    it.each([0, -1, 2.5, '10'])('when packageSize is %p, then rejected', (packageSize) => {
      expect(errorsOf(pkg({ packageSize, packageAmount: 1 }))).toEqual([
        { pointer: '/pricing/eur/packageSize', detail: 'must be a whole number of units of at least 1' },
      ]);
    });

    it('when members are missing or unknown, then each is reported', () => {
      expect(pointersOf(pkg({ unitAmount: 1 }))).toEqual(['/pricing/eur/unitAmount', '/pricing/eur/packageSize', '/pricing/eur/packageAmount']);
    });
  });

  describe.each(['volume', 'graduated'])('%s entries', (priceModel) => {
    const tiered = (entry: unknown) => create({ priceModel, pricing: { eur: entry } });

    it('when tiers ascend and end unbounded, then accepted with flatAmount defaulting to 0', () => {
      expect(tiered({ tiers })().pricing.eur).toEqual({
        tiers: [
          { upTo: 10, unitAmount: 500, flatAmount: 0 },
          { upTo: null, unitAmount: 400, flatAmount: 0 },
        ],
      });
    });

    it('when a single unbounded tier with a null flatAmount, then accepted', () => {
      expect(tiered({ tiers: [{ upTo: null, unitAmount: 1, flatAmount: null }] })().pricing.eur).toEqual({
        tiers: [{ upTo: null, unitAmount: 1, flatAmount: 0 }],
      });
    });

    it.each([
      ['missing', {}, '/pricing/eur/tiers', 'is required'],
      ['not an array', { tiers: {} }, '/pricing/eur/tiers', 'must be an array of tiers'],
      ['empty', { tiers: [] }, '/pricing/eur/tiers', 'must contain at least one tier'],
      ['a tier not an object', { tiers: [5] }, '/pricing/eur/tiers/0', 'must be an object'],
      ['last upTo missing', { tiers: [{ unitAmount: 1 }] }, '/pricing/eur/tiers/0/upTo', 'is required: use null for the last, unbounded tier'],
      ['inner upTo missing', { tiers: [{ unitAmount: 1 }, tiers[1]] }, '/pricing/eur/tiers/0/upTo', 'is required'],
      ['inner upTo null', { tiers: [{ ...tiers[0], upTo: null }, tiers[1]] }, '/pricing/eur/tiers/0/upTo', 'only the last tier may be unbounded (null)'],
      ['last upTo bounded', { tiers: [tiers[0], { ...tiers[1], upTo: 20 }] }, '/pricing/eur/tiers/1/upTo', 'must be null: the last tier is unbounded'],
      ['upTo 0', { tiers: [{ ...tiers[0], upTo: 0 }, tiers[1]] }, '/pricing/eur/tiers/0/upTo', 'must be a whole number of units of at least 1'],
      ['upTo fractional', { tiers: [{ ...tiers[0], upTo: 1.5 }, tiers[1]] }, '/pricing/eur/tiers/0/upTo', 'must be a whole number of units of at least 1'],
      ['unitAmount missing', { tiers: [{ upTo: null }] }, '/pricing/eur/tiers/0/unitAmount', 'is required'],
      [
        'flatAmount negative',
        { tiers: [{ upTo: null, unitAmount: 1, flatAmount: -1 }] },
        '/pricing/eur/tiers/0/flatAmount',
        'must be a whole amount in minor units from 0 to 9007199254740991',
      ],
      ['unknown tier member', { tiers: [{ upTo: null, unitAmount: 1, from: 0 }] }, '/pricing/eur/tiers/0/from', 'unknown property: not accepted here'],
      ['unknown entry member', { tiers, mode: 'x' }, '/pricing/eur/mode', 'unknown property: not accepted here'],
    ])('when %s, then rejected at the bad member', (_, entry, pointer, detail) => {
      expect(errorsOf(tiered(entry))).toEqual([{ pointer, detail }]);
    });

    it.each([
      ['equal', [10, 10]],
      ['descending', [10, 5]],
    ])('when upTo values are %s, then the later one is rejected', (_, [a, b]) => {
      const entry = {
        tiers: [
          { upTo: a, unitAmount: 1 },
          { upTo: b, unitAmount: 1 },
          { upTo: null, unitAmount: 1 },
        ],
      };
      expect(errorsOf(tiered(entry))).toEqual([{ pointer: '/pricing/eur/tiers/1/upTo', detail: "must be greater than the previous tier's upTo (10)" }]);
    });

    it('when a fee-shaped entry is sent, then it does not fit the model', () => {
      expect(pointersOf(tiered({ unitAmount: 1 }))).toEqual(['/pricing/eur/unitAmount', '/pricing/eur/tiers']);
    });
  });

  describe('properties', () => {
    it('accepts every generated valid body and keeps its values', () => {
      fc.assert(
        fc.property(createPriceBodyArb, (body) => {
          const input = validateCreatePrice(body);
          expect(input.name).toBe(body.name);
          expect(input.priceModel).toBe(body.priceModel);
          expect(input.termCount).toBe(body.purchase === 'recurring' ? (body as { termCount: number }).termCount : null);
        }),
      );
    });

    it('is idempotent: validated input validates to itself (the deciders re-validate)', () => {
      fc.assert(
        fc.property(createPriceBodyArb, (body) => {
          const input = validateCreatePrice(body);
          expect(validateCreatePrice(input)).toEqual(input);
        }),
      );
    });

    it('reports exactly one error at the pointer of any added unknown property', () => {
      const known = ['name', 'description', 'priceModel', 'purchase', 'termCount', 'termUnit', 'billingTiming', 'pricing', 'productId', 'metricCode', 'id'];
      fc.assert(
        fc.property(
          createPriceBodyArb,
          fc.string({ minLength: 1 }).filter((k) => !known.includes(k) && !['archived', 'archivedAt', 'createdAt', 'updatedAt'].includes(k)),
          (body, key) => {
            const errors = errorsOf(() => validateCreatePrice({ ...body, [key]: 1 }));
            expect(errors).toEqual([{ pointer: '/' + key.replace(/~/g, '~0').replace(/\//g, '~1'), detail: 'unknown property: not accepted here' }]);
          },
        ),
      );
    });
  });
});

describe('validateUpdatePrice', () => {
  const recurringFee: PriceShape = { priceModel: 'fee', purchase: 'recurring' };
  const oneTimeVolume: PriceShape = { priceModel: 'volume', purchase: 'one_time' };
  const update =
    (body: unknown, current = recurringFee) =>
    () =>
      validateUpdatePrice(body, current);

  it('when the body is empty, then it is valid and changes nothing', () => {
    expect(validateUpdatePrice({}, recurringFee)).toEqual({});
  });

  it('when the body is not an object, then one error at the root', () => {
    expect(errorsOf(update([]))).toEqual([{ pointer: '', detail: 'the request body must be a JSON object' }]);
  });

  it('when all four fields are valid, then only they are returned', () => {
    expect(validateUpdatePrice({ name: 'New', termCount: 3, description: 'd', pricing: { dkk: { unitAmount: 9 } } }, recurringFee)).toEqual({
      name: 'New',
      termCount: 3,
      description: 'd',
      pricing: { dkk: { unitAmount: 9 } },
    });
  });

  it('when description is null, then it clears the description', () => {
    expect(validateUpdatePrice({ description: null }, recurringFee)).toEqual({ description: null });
  });

  it.each([
    ['name', '', 'must be 1 to 250 characters long'],
    ['name', 'a'.repeat(251), 'must be 1 to 250 characters long'],
    ['name', null, 'must be a string'],
    ['description', 'a'.repeat(4001), 'must be at most 4000 characters long'],
    ['termCount', 0, 'must be an integer from 1 to 10000'],
    ['termCount', 10001, 'must be an integer from 1 to 10000'],
    ['termCount', null, 'must be an integer from 1 to 10000'],
    ['pricing', {}, 'must contain at least one currency'],
    ['pricing', null, 'must be an object keyed by currency code'],
  ])('when %s is %p, then rejected', (field, value, detail) => {
    expect(errorsOf(update({ [field]: value }))).toEqual([{ pointer: `/${field}`, detail }]);
  });

  it.each([
    ['name', 'a'.repeat(250)],
    ['description', 'a'.repeat(4000)],
    ['termCount', 1],
    ['termCount', 10000],
  ])('when %s is at its bound, then accepted', (field, value) => {
    expect(validateUpdatePrice({ [field]: value }, recurringFee)).toEqual({ [field]: value });
  });

  it('when termCount is sent for a one_time price, then rejected', () => {
    expect(errorsOf(update({ termCount: 1 }, oneTimeVolume))).toEqual([{ pointer: '/termCount', detail: 'is not allowed for a one_time price' }]);
  });

  it("when pricing is sent, then it is validated against the price's current model", () => {
    expect(validateUpdatePrice({ pricing: { eur: { tiers } } }, oneTimeVolume).pricing).toEqual({
      eur: { tiers: [tiers[0], { ...tiers[1], flatAmount: 0 }] },
    });
    expect(pointersOf(update({ pricing: { eur: { tiers } } }))).toEqual(['/pricing/eur/tiers', '/pricing/eur/unitAmount']);
  });

  it.each(['priceModel', 'purchase', 'termUnit', 'billingTiming', 'productId'])('when immutable %s is sent, then rejected as unchangeable', (field) => {
    expect(errorsOf(update({ [field]: 'x' }))).toEqual([{ pointer: `/${field}`, detail: 'cannot be changed after the price is created' }]);
  });

  it('when read-only or unknown properties are sent, then each is rejected', () => {
    expect(errorsOf(update({ id: 'x', colour: 'red' }))).toEqual([
      { pointer: '/id', detail: 'is read-only' },
      { pointer: '/colour', detail: 'unknown property: not accepted here' },
    ]);
  });

  it('when many fields are wrong, then all errors are reported at once', () => {
    expect(pointersOf(update({ name: '', termCount: 0, description: 1, pricing: { EUR: {} }, purchase: 'x' }))).toEqual([
      '/purchase',
      '/name',
      '/description',
      '/termCount',
      '/pricing/EUR',
    ]);
  });
});
