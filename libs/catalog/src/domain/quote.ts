import { childPointer, FieldError, ValidationError, assertAmountInRange } from '@billing/shared-kernel';
import { UNKNOWN_PROPERTY, isJsonObject, own } from './json';
import { amountFor } from './pricing';
import { PriceModel, Pricing } from './types';

/**
 * The pricing preview: what `quantity` units of a price cost in one of its
 * currencies. Validates the untrusted body like the other validators (every
 * problem, with JSON pointers) and then applies `amountFor`.
 */

export interface QuotablePrice {
  readonly id: string;
  readonly priceModel: PriceModel;
  readonly pricing: Pricing;
}

export interface Quote {
  readonly priceId: string;
  readonly currency: string;
  readonly quantity: number;
  readonly amount: number;
}

const QUOTE_FIELDS = ['currency', 'quantity'];

export function quotePrice(price: QuotablePrice, body: unknown): Quote {
  if (!isJsonObject(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) {
    if (!QUOTE_FIELDS.includes(key)) errors.push({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY });
  }
  const currency = own(body, 'currency');
  if (currency === undefined || currency === null) errors.push({ pointer: '/currency', detail: 'is required' });
  else if (typeof currency !== 'string') errors.push({ pointer: '/currency', detail: 'must be a string' });
  else if (!Object.prototype.hasOwnProperty.call(price.pricing, currency)) {
    const known = Object.keys(price.pricing).sort().join(', ');
    errors.push({ pointer: '/currency', detail: `the price has no pricing in '${currency}' (it has: ${known})` });
  }
  const quantity = own(body, 'quantity');
  if (quantity === undefined || quantity === null) errors.push({ pointer: '/quantity', detail: 'is required' });
  else if (typeof quantity !== 'number' || !Number.isFinite(quantity)) errors.push({ pointer: '/quantity', detail: 'must be a number' });
  if (errors.length > 0) throw new ValidationError('The quote request is invalid', errors);

  const code = currency as string;
  const amount = assertAmountInRange(amountFor(price.priceModel, price.pricing[code], quantity as number, '/quantity'), '/quantity');
  return { priceId: price.id, currency: code, quantity: quantity as number, amount: Number(amount) };
}
