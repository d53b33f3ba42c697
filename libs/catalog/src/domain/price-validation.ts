import { childPointer, FieldError, MAX_AMOUNT, ValidationError, isSupportedCurrency, isUuid } from '@billing/shared-kernel';
import { JsonObject, UNKNOWN_PROPERTY, has, isJsonObject, own, textProblem } from './json';
import {
  BILLING_TIMINGS,
  BillingTiming,
  PRICE_LIMITS,
  PRICE_MODELS,
  PURCHASES,
  PriceModel,
  Pricing,
  PricingEntry,
  Purchase,
  TERM_UNITS,
  TermUnit,
  Tier,
} from './types';

/**
 * Validation of the untrusted POST /prices and PUT /prices/{id} bodies.
 * Every field is checked and every problem collected, so a client fixes its
 * request in one round trip; one ValidationError carries all `{pointer, detail}`.
 *
 * Conventions (decided here, documented for the API docs):
 * - Lengths count Unicode code points (`[...s].length`): an emoji is one character.
 * - Strings are kept as sent (no trimming): the service does not rewrite names.
 * - On create, `null` for an optional field means "not given" (so a client may
 *   send the nulls a Price view carries); `null` for a required field is "is required".
 * - Pricing currency keys come out sorted; tier `flatAmount` defaults to 0.
 */

export interface CreatePriceInput {
  readonly name: string;
  readonly description: string | null;
  readonly priceModel: PriceModel;
  readonly purchase: Purchase;
  /** Non-null exactly when purchase is `recurring`. */
  readonly termCount: number | null;
  readonly termUnit: TermUnit | null;
  readonly billingTiming: BillingTiming;
  readonly pricing: Pricing;
  readonly productId: string | null;
  /**
   * The billable metric an `event_based` price bills (its code); present only on
   * such prices. The catalog checks its format only: metrics belong to the
   * subscriptions context, which checks that it exists when subscribing.
   */
  readonly metricCode?: string;
}

/** A billable metric's code: 1–100 of letters, digits, `_`, `-`, `.`, `:`. */
export const METRIC_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Only the members present in the body; `description: null` clears the description. */
export interface UpdatePriceInput {
  readonly name?: string;
  readonly termCount?: number;
  readonly description?: string | null;
  readonly pricing?: Pricing;
}

/** What an update is validated against: the price as it is now. */
export interface PriceShape {
  readonly priceModel: PriceModel;
  readonly purchase: Purchase;
}

const MAX_SAFE = Number(MAX_AMOUNT);
const READ_ONLY = ['id', 'archived', 'archivedAt', 'createdAt', 'updatedAt'];
const CREATE_FIELDS = ['name', 'description', 'priceModel', 'purchase', 'termCount', 'termUnit', 'billingTiming', 'pricing', 'productId', 'metricCode'];
const UPDATE_FIELDS = ['name', 'termCount', 'description', 'pricing'];

class Errors {
  readonly list: FieldError[] = [];
  /** Records an error; returns undefined so a checker can `return errors.add(...)`. */
  add(pointer: string, detail: string): undefined {
    this.list.push({ pointer, detail });
    return undefined;
  }
  throwIfAny(message: string): void {
    if (this.list.length > 0) throw new ValidationError(message, this.list);
  }
}

export function validateCreatePrice(body: unknown): CreatePriceInput {
  const errors = new Errors();
  const b = requireObject(body);
  rejectUnknown(b, CREATE_FIELDS, '', errors, (key) => (READ_ONLY.includes(key) ? 'is read-only' : undefined));

  const name = required(b, 'name', errors) && text(b.name, '/name', 1, PRICE_LIMITS.nameMaxLength, errors);
  const description = optional(b, 'description') ? text(b.description, '/description', 0, PRICE_LIMITS.descriptionMaxLength, errors) : null;
  const priceModel = required(b, 'priceModel', errors) && oneOf(b.priceModel, '/priceModel', PRICE_MODELS, errors);
  const purchase = required(b, 'purchase', errors) && oneOf(b.purchase, '/purchase', PURCHASES, errors);
  const billingTiming = optional(b, 'billingTiming') ? oneOf(b.billingTiming, '/billingTiming', BILLING_TIMINGS, errors) : 'advance';
  const productId = optional(b, 'productId') ? uuid(b.productId, '/productId', errors) : null;
  const pricing = required(b, 'pricing', errors) ? validatePricing(b.pricing, priceModel || undefined, '/pricing', errors) : undefined;

  // An event_based price names the metric whose aggregated quantity of each period it prices; no other price does.
  let metricCode: string | undefined;
  if (billingTiming === 'event_based') {
    if (required(b, 'metricCode', errors, 'is required for an event_based price')) {
      if (typeof b.metricCode === 'string' && METRIC_CODE_PATTERN.test(b.metricCode)) metricCode = b.metricCode;
      else errors.add('/metricCode', 'must be a billable metric code: 1 to 100 letters, digits, _ - . or :');
    }
    if (purchase === 'one_time') errors.add('/billingTiming', 'event_based prices bill usage per period: purchase must be recurring');
  } else if (optional(b, 'metricCode')) {
    errors.add('/metricCode', 'is only allowed for an event_based price');
  }

  // The term belongs to recurring prices only; with an invalid purchase, still check its shape.
  let termCount: number | null | undefined = null;
  let termUnit: TermUnit | null | undefined = null;
  if (purchase === 'one_time') {
    if (optional(b, 'termCount')) errors.add('/termCount', 'is not allowed for a one_time price');
    if (optional(b, 'termUnit')) errors.add('/termUnit', 'is not allowed for a one_time price');
  } else {
    const needed = purchase === 'recurring';
    if (needed ? required(b, 'termCount', errors, 'is required for a recurring price') : optional(b, 'termCount')) {
      termCount = termCountOf(b.termCount, errors);
    }
    if (needed ? required(b, 'termUnit', errors, 'is required for a recurring price') : optional(b, 'termUnit')) {
      termUnit = oneOf(b.termUnit, '/termUnit', TERM_UNITS, errors);
    }
  }

  errors.throwIfAny('The price is invalid');
  // No errors means every checker returned a value.
  return {
    name: name as string,
    description: description as string | null,
    priceModel: priceModel as PriceModel,
    purchase: purchase as Purchase,
    termCount: termCount as number | null,
    termUnit: termUnit as TermUnit | null,
    billingTiming: billingTiming as BillingTiming,
    pricing: pricing as Pricing,
    productId: productId as string | null,
    ...(metricCode === undefined ? {} : { metricCode }),
  };
}

/**
 * Decision: an empty body `{}` is valid and changes nothing (PUT here is a
 * partial update of the four updatable fields; omitted fields keep their values).
 */
export function validateUpdatePrice(body: unknown, current: PriceShape): UpdatePriceInput {
  const errors = new Errors();
  const b = requireObject(body);
  rejectUnknown(b, UPDATE_FIELDS, '', errors, (key) =>
    READ_ONLY.includes(key) ? 'is read-only' : CREATE_FIELDS.includes(key) ? 'cannot be changed after the price is created' : undefined,
  );

  const input: { -readonly [K in keyof UpdatePriceInput]: UpdatePriceInput[K] } = {};
  if (has(b, 'name')) input.name = text(b.name, '/name', 1, PRICE_LIMITS.nameMaxLength, errors);
  if (has(b, 'description')) {
    input.description = b.description === null ? null : text(b.description, '/description', 0, PRICE_LIMITS.descriptionMaxLength, errors);
  }
  if (has(b, 'termCount')) {
    if (current.purchase === 'one_time') errors.add('/termCount', 'is not allowed for a one_time price');
    else input.termCount = termCountOf(b.termCount, errors);
  }
  if (has(b, 'pricing')) input.pricing = validatePricing(b.pricing, current.priceModel, '/pricing', errors);

  errors.throwIfAny('The price update is invalid');
  return input;
}

/**
 * Validates a pricing dictionary against a price model. With the model unknown
 * (itself invalid) only the dictionary and its keys are checked.
 */
function validatePricing(value: unknown, model: PriceModel | undefined, pointer: string, errors: Errors): Pricing | undefined {
  if (!isJsonObject(value)) return errors.add(pointer, 'must be an object keyed by currency code');
  const keys = Object.keys(value).sort();
  if (keys.length === 0) return errors.add(pointer, 'must contain at least one currency');
  const before = errors.list.length;
  const pricing: Record<string, PricingEntry> = {};
  for (const key of keys) {
    const at = childPointer(pointer, key);
    const lower = key.toLowerCase();
    if (!isSupportedCurrency(key)) {
      errors.add(at, isSupportedCurrency(lower) ? `currency codes must be lowercase: use '${lower}'` : `'${key}' is not a supported ISO 4217 currency code`);
    } else if (model !== undefined) {
      const entry = validateEntry(value[key], model, at, errors);
      if (entry) pricing[key] = entry;
    }
  }
  return model !== undefined && errors.list.length === before ? pricing : undefined;
}

function validateEntry(value: unknown, model: PriceModel, pointer: string, errors: Errors): PricingEntry | undefined {
  if (!isJsonObject(value)) return errors.add(pointer, `must be an object (the ${model} pricing of one currency)`);
  const before = errors.list.length;
  const ok = <T>(entry: T): T | undefined => (errors.list.length === before ? entry : undefined);
  switch (model) {
    case 'fee': {
      rejectUnknown(value, ['unitAmount'], pointer, errors);
      const unitAmount = requiredMember(value, 'unitAmount', pointer, errors) && amount(value.unitAmount, `${pointer}/unitAmount`, errors);
      return ok({ unitAmount: unitAmount as number });
    }
    case 'package': {
      rejectUnknown(value, ['packageSize', 'packageAmount'], pointer, errors);
      const packageSize =
        requiredMember(value, 'packageSize', pointer, errors) &&
        integer(value.packageSize, `${pointer}/packageSize`, 1, MAX_SAFE, 'must be a whole number of units of at least 1', errors);
      const packageAmount = requiredMember(value, 'packageAmount', pointer, errors) && amount(value.packageAmount, `${pointer}/packageAmount`, errors);
      return ok({ packageSize: packageSize as number, packageAmount: packageAmount as number });
    }
    case 'volume':
    case 'graduated': {
      rejectUnknown(value, ['tiers'], pointer, errors);
      const tiers = requiredMember(value, 'tiers', pointer, errors) && validateTiers(value.tiers, `${pointer}/tiers`, errors);
      return ok({ tiers: tiers as Tier[] });
    }
  }
}

function validateTiers(value: unknown, pointer: string, errors: Errors): Tier[] | undefined {
  if (!Array.isArray(value)) return errors.add(pointer, 'must be an array of tiers');
  if (value.length === 0) return errors.add(pointer, 'must contain at least one tier');
  const tiers: Tier[] = [];
  let previousUpTo = 0; // the first tier starts above quantity 0
  value.forEach((tier: unknown, i) => {
    const at = childPointer(pointer, i);
    if (!isJsonObject(tier)) return errors.add(at, 'must be an object');
    rejectUnknown(tier, ['upTo', 'unitAmount', 'flatAmount'], at, errors);
    const last = i === value.length - 1;
    let upTo: number | null | undefined = null;
    if (!has(tier, 'upTo')) {
      errors.add(`${at}/upTo`, last ? 'is required: use null for the last, unbounded tier' : 'is required');
    } else if (last) {
      if (tier.upTo !== null) errors.add(`${at}/upTo`, 'must be null: the last tier is unbounded');
    } else if (tier.upTo === null) {
      errors.add(`${at}/upTo`, 'only the last tier may be unbounded (null)');
    } else {
      upTo = integer(tier.upTo, `${at}/upTo`, 1, MAX_SAFE, 'must be a whole number of units of at least 1', errors);
      if (upTo !== undefined && upTo <= previousUpTo) {
        errors.add(`${at}/upTo`, `must be greater than the previous tier's upTo (${previousUpTo})`);
      }
      if (upTo !== undefined) previousUpTo = Math.max(previousUpTo, upTo);
    }
    const unitAmount = requiredMember(tier, 'unitAmount', at, errors) && amount(tier.unitAmount, `${at}/unitAmount`, errors);
    const flatAmount = optional(tier, 'flatAmount') ? amount(tier.flatAmount, `${at}/flatAmount`, errors) : 0;
    tiers.push({ upTo: upTo as number | null, unitAmount: unitAmount as number, flatAmount: flatAmount as number });
  });
  return tiers;
}

// ---- field checkers: each returns the valid value, or records an error and returns undefined

function requireObject(body: unknown): JsonObject {
  if (!isJsonObject(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  return body;
}

function rejectUnknown(
  object: JsonObject,
  allowed: readonly string[],
  pointer: string,
  errors: Errors,
  explain: (key: string) => string | undefined = () => undefined,
): void {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) errors.add(childPointer(pointer, key), explain(key) ?? UNKNOWN_PROPERTY);
  }
}

/** Present and not null; records "is required" otherwise. */
function required(object: JsonObject, key: string, errors: Errors, detail = 'is required'): boolean {
  if (own(object, key) !== undefined && own(object, key) !== null) return true;
  errors.add(`/${key}`, detail);
  return false;
}

function requiredMember(object: JsonObject, key: string, pointer: string, errors: Errors): boolean {
  if (own(object, key) !== undefined && own(object, key) !== null) return true;
  errors.add(`${pointer}/${key}`, 'is required');
  return false;
}

/** Present with a non-null value (null on an optional field means "not given"). */
function optional(object: JsonObject, key: string): boolean {
  return own(object, key) !== undefined && own(object, key) !== null;
}

function text(value: unknown, pointer: string, min: number, max: number, errors: Errors): string | undefined {
  const problem = textProblem(value, min, max);
  return problem ? errors.add(pointer, problem) : (value as string);
}

function oneOf<T extends string>(value: unknown, pointer: string, values: readonly T[], errors: Errors): T | undefined {
  if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
  return errors.add(pointer, `must be one of: ${values.join(', ')}`);
}

function integer(value: unknown, pointer: string, min: number, max: number, detail: string, errors: Errors): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value === 0 ? 0 : value; // -0 -> 0
  return errors.add(pointer, detail);
}

function amount(value: unknown, pointer: string, errors: Errors): number | undefined {
  return integer(value, pointer, 0, MAX_SAFE, `must be a whole amount in minor units from 0 to ${MAX_SAFE}`, errors);
}

function termCountOf(value: unknown, errors: Errors): number | undefined {
  const { termCountMin: min, termCountMax: max } = PRICE_LIMITS;
  return integer(value, '/termCount', min, max, `must be an integer from ${min} to ${max}`, errors);
}

function uuid(value: unknown, pointer: string, errors: Errors): string | undefined {
  if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
  return errors.add(pointer, 'must be a UUID');
}
