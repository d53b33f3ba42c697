import { ValidationError } from '@billing/shared-kernel';
import { QuotablePrice, quotePrice } from './quote';

const id = '0b6c2d1e-3f4a-4b5c-8d6e-7f8091a2b3c4';
const fee: QuotablePrice = { id, priceModel: 'fee', pricing: { eur: { unitAmount: 1500 }, usd: { unitAmount: 1600 } } };
const graduated: QuotablePrice = {
  id,
  priceModel: 'graduated',
  pricing: {
    eur: {
      tiers: [
        { upTo: 5, unitAmount: 500, flatAmount: 0 },
        { upTo: 10, unitAmount: 400, flatAmount: 0 },
        { upTo: null, unitAmount: 300, flatAmount: 0 },
      ],
    },
  },
};

function errorsOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors;
  }
  throw new Error('expected a ValidationError');
}

describe('quotePrice', () => {
  it('given a fee price, when quoted for 2.5 units in eur, then the amount is 1500 x 2.5 = 3750', () => {
    expect(quotePrice(fee, { currency: 'eur', quantity: 2.5 })).toEqual({ priceId: id, currency: 'eur', quantity: 2.5, amount: 3750 });
  });

  it('given a graduated price, when quoted for 11 units, then each tier prices its own units: 5x500 + 5x400 + 1x300 = 4800', () => {
    expect(quotePrice(graduated, { currency: 'eur', quantity: 11 }).amount).toBe(4800);
  });

  it('given a currency the price has no pricing in, then 422 at /currency', () => {
    expect(errorsOf(() => quotePrice(fee, { currency: 'gbp', quantity: 1 }))).toEqual([
      { pointer: '/currency', detail: "the price has no pricing in 'gbp' (it has: eur, usd)" },
    ]);
  });

  it('collects every problem: missing currency, non-numeric quantity and unknown properties', () => {
    expect(errorsOf(() => quotePrice(fee, { quantity: '2', colour: 'red' }))).toEqual([
      { pointer: '/colour', detail: 'unknown property: not accepted here' },
      { pointer: '/currency', detail: 'is required' },
      { pointer: '/quantity', detail: 'must be a number' },
    ]);
  });

  it('rejects a body that is not an object, a negative quantity and more than 4 decimals', () => {
    expect(errorsOf(() => quotePrice(fee, []))).toEqual([{ pointer: '', detail: 'the request body must be a JSON object' }]);
    expect(errorsOf(() => quotePrice(fee, { currency: 'eur', quantity: -1 }))).toEqual([{ pointer: '/quantity', detail: 'must not be negative' }]);
    expect(errorsOf(() => quotePrice(fee, { currency: 'eur', quantity: 1.00001 }))).toEqual([
      { pointer: '/quantity', detail: 'must have at most 4 decimal places' },
    ]);
  });

  it('does not find inherited members: currency "constructor" is not a pricing entry', () => {
    expect(errorsOf(() => quotePrice(fee, { currency: 'constructor', quantity: 1 }))[0].pointer).toBe('/currency');
  });

  it('answers 422 at /quantity when the amount exceeds the supported range', () => {
    const huge: QuotablePrice = { id, priceModel: 'fee', pricing: { eur: { unitAmount: Number.MAX_SAFE_INTEGER } } };
    expect(errorsOf(() => quotePrice(huge, { currency: 'eur', quantity: 2 }))[0].pointer).toBe('/quantity');
  });
});
