import {
  CommandMetadata,
  ConflictError,
  DomainEvent,
  Evolver,
  FieldError,
  NotFoundError,
  parseScaledDecimal,
  ValidationError,
  deciderOf,
} from '@billing/shared-kernel';
import { amountsByCurrency, code, instant, integer, isJsonObject, own, refuseUnknown, text, uuids } from './body';

/**
 * The Coupon aggregate: a reusable discount (a percentage or an amount per
 * currency, for once, some months or forever, optionally for some products
 * only). Its terms never change once created, so a redemption's snapshot of
 * them stays true; only the name, the limit (upward) and redeemBy may.
 * Redemptions are events on its stream, appended at the version loaded, so
 * `maxRedemptions` holds under any concurrency.
 */

export const COUPON_STREAM = 'coupon';
export const MAX_DURATION_MONTHS = 120;
export const MAX_REDEMPTIONS = 1_000_000_000;
export const MAX_APPLIES_TO_PRODUCTS = 100;
/** percentOff has 2 decimals: 100 % is 10000 at that scale. */
export const PERCENT_SCALE = 2;

export type CouponDuration = 'once' | 'repeating' | 'forever';
const DURATIONS: readonly CouponDuration[] = ['once', 'repeating', 'forever'];

/** What a coupon takes off, for how long and on what: fixed at creation. */
export interface CouponTerms {
  /** 0.01–100, at most 2 decimals; null with amountOff. */
  readonly percentOff: number | null;
  /** Minor units per uppercase ISO 4217 currency; null with percentOff. */
  readonly amountOff: Readonly<Record<string, number>> | null;
  readonly duration: CouponDuration;
  /** With repeating only: 1–120. */
  readonly durationInMonths: number | null;
  /** Null: every line is eligible. */
  readonly appliesTo: { readonly productIds: readonly string[] } | null;
}

export interface CreateCouponInput extends CouponTerms {
  readonly code: string | null;
  readonly name: string;
  readonly maxRedemptions: number | null;
  readonly redeemBy: string | null;
}

/** PUT /coupons/{id}: members left out are kept; null clears maxRedemptions (unlimited) or redeemBy. */
export interface UpdateCouponInput {
  readonly name?: string;
  readonly maxRedemptions?: number | null;
  readonly redeemBy?: string | null;
}

export interface Coupon extends CreateCouponInput {
  readonly status: 'active' | 'archived';
  readonly id: string;
  readonly timesRedeemed: number;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly archivedAt: string | null;
}
export type CouponState = { readonly status: 'none' } | Coupon;

export type CouponCreated = DomainEvent<'CouponCreated', CreateCouponInput & { readonly couponId: string; readonly createdAt: string }>;
/** A snapshot of the three members an update may change. */
export type CouponUpdated = DomainEvent<
  'CouponUpdated',
  { readonly couponId: string; readonly name: string; readonly maxRedemptions: number | null; readonly redeemBy: string | null; readonly updatedAt: string }
>;
export type CouponArchived = DomainEvent<'CouponArchived', { readonly couponId: string; readonly archivedAt: string }>;
/** One redemption: `redemptionId` is the discount it became (the discount id on the subscription, customer or invoice that redeemed it). */
export type CouponRedeemed = DomainEvent<
  'CouponRedeemed',
  {
    readonly couponId: string;
    readonly redemptionId: string;
    readonly promotionCodeId: string | null;
    readonly redeemedBy: { readonly type: 'subscription' | 'customer' | 'invoice'; readonly id: string };
    readonly redeemedAt: string;
  }
>;
export type CouponEvent = CouponCreated | CouponUpdated | CouponArchived | CouponRedeemed;

export function evolveCoupon(state: CouponState, event: CouponEvent): CouponState {
  if (event.type === 'CouponCreated') {
    if (state.status !== 'none') return state;
    const { couponId, createdAt, ...input } = event.data;
    return { ...input, status: 'active', id: couponId, timesRedeemed: 0, createdAt, updatedAt: null, archivedAt: null };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'CouponUpdated': {
      const { name, maxRedemptions, redeemBy, updatedAt } = event.data;
      return { ...state, name, maxRedemptions, redeemBy, updatedAt };
    }
    case 'CouponArchived':
      return { ...state, status: 'archived', archivedAt: event.data.archivedAt, updatedAt: event.data.archivedAt };
    case 'CouponRedeemed':
      return { ...state, timesRedeemed: state.timesRedeemed + 1 };
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const couponEvolver: Evolver<CouponState, CouponEvent> = { initialState: () => ({ status: 'none' }), evolve: evolveCoupon };

export function existingCoupon(state: CouponState, couponId: string): Coupon {
  if (state.status === 'none') throw new NotFoundError('coupon', couponId);
  return state;
}

function activeCoupon(state: CouponState, couponId: string): Coupon {
  const coupon = existingCoupon(state, couponId);
  if (coupon.status === 'archived') throw new ConflictError('coupon-archived', `coupon ${couponId} is archived: it takes no new redemptions and no changes`);
  return coupon;
}

// ---------------------------------------------------------------- commands

export function decideCreateCoupon(command: { couponId: string; input: CreateCouponInput }, state: CouponState, meta: CommandMetadata): CouponCreated[] {
  if (state.status !== 'none') throw new ConflictError('coupon-exists', `coupon ${command.couponId} already exists`);
  return [{ type: 'CouponCreated', schemaVersion: 1, data: { couponId: command.couponId, ...command.input, createdAt: meta.now.toISOString() } }];
}

/** maxRedemptions only upward (null, unlimited, is the top); an archived coupon is not changed. */
export function decideUpdateCoupon(command: { couponId: string; input: UpdateCouponInput }, state: CouponState, meta: CommandMetadata): CouponUpdated[] {
  const coupon = activeCoupon(state, command.couponId);
  const { name = coupon.name, maxRedemptions = coupon.maxRedemptions, redeemBy = coupon.redeemBy } = command.input;
  if (coupon.maxRedemptions === null ? maxRedemptions !== null : maxRedemptions !== null && maxRedemptions < coupon.maxRedemptions) {
    throw ValidationError.at('/maxRedemptions', `may only be raised: it is ${coupon.maxRedemptions ?? 'unlimited (null)'}`);
  }
  return [{ type: 'CouponUpdated', schemaVersion: 1, data: { couponId: coupon.id, name, maxRedemptions, redeemBy, updatedAt: meta.now.toISOString() } }];
}

export function decideArchiveCoupon(command: { couponId: string }, state: CouponState, meta: CommandMetadata): CouponArchived[] {
  const coupon = activeCoupon(state, command.couponId);
  return [{ type: 'CouponArchived', schemaVersion: 1, data: { couponId: coupon.id, archivedAt: meta.now.toISOString() } }];
}

/**
 * One redemption, decided on the coupon's current state: refused when it is
 * archived (409 coupon-archived), past redeemBy on the environment's clock
 * (409 coupon-expired) or used up (409 coupon-exhausted). The caller appends
 * the event at the version it loaded, in its own transaction.
 */
export function decideRedeemCoupon(
  command: { couponId: string; redemptionId: string; promotionCodeId: string | null; redeemedBy: CouponRedeemed['data']['redeemedBy'] },
  state: CouponState,
  meta: CommandMetadata,
): CouponRedeemed[] {
  const coupon = activeCoupon(state, command.couponId);
  if (coupon.redeemBy !== null && meta.now.getTime() > Date.parse(coupon.redeemBy)) {
    throw new ConflictError('coupon-expired', `coupon ${coupon.id} could be redeemed until ${coupon.redeemBy}`);
  }
  if (coupon.maxRedemptions !== null && coupon.timesRedeemed >= coupon.maxRedemptions) {
    throw new ConflictError('coupon-exhausted', `coupon ${coupon.id} has been redeemed ${coupon.timesRedeemed} of ${coupon.maxRedemptions} times`);
  }
  return [{ type: 'CouponRedeemed', schemaVersion: 1, data: { ...command, redeemedAt: meta.now.toISOString() } }];
}

// ---------------------------------------------------------------- validation

const CREATE_MEMBERS = ['code', 'name', 'percentOff', 'amountOff', 'duration', 'durationInMonths', 'maxRedemptions', 'redeemBy', 'appliesTo'];
const UPDATE_MEMBERS = ['name', 'maxRedemptions', 'redeemBy'];

/** POST /coupons: every problem at its pointer at once; unknown members refused. */
export function validateCreateCoupon(body: unknown): CreateCouponInput {
  if (!isJsonObject(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  const errors: FieldError[] = [];
  refuseUnknown(body, CREATE_MEMBERS, '', errors);
  const rawCode = own(body, 'code') ?? null;
  const couponCode = rawCode === null ? null : code(rawCode, '/code', errors);
  const name = text(own(body, 'name'), '/name', 1, 250, errors);
  const rawPercent = own(body, 'percentOff') ?? null;
  const rawAmount = own(body, 'amountOff') ?? null;
  let percentOff: number | null | undefined = null;
  let amountOff: Readonly<Record<string, number>> | null | undefined = null;
  if (rawPercent !== null && rawAmount !== null) {
    errors.push({ pointer: '/percentOff', detail: 'not together with amountOff' }, { pointer: '/amountOff', detail: 'not together with percentOff' });
  } else if (rawPercent === null && rawAmount === null) {
    errors.push({ pointer: '/percentOff', detail: 'is required, or amountOff' });
  } else if (rawPercent !== null) {
    percentOff = percent(rawPercent, '/percentOff', errors);
  } else {
    amountOff = amountsByCurrency(rawAmount, '/amountOff', errors);
  }
  const duration = own(body, 'duration');
  if (!DURATIONS.includes(duration as CouponDuration)) errors.push({ pointer: '/duration', detail: `must be one of ${DURATIONS.join(', ')}` });
  const rawMonths = own(body, 'durationInMonths') ?? null;
  let durationInMonths: number | null | undefined = null;
  if (duration === 'repeating') {
    if (rawMonths === null) errors.push({ pointer: '/durationInMonths', detail: 'is required with duration repeating' });
    else durationInMonths = integer(rawMonths, '/durationInMonths', 1, MAX_DURATION_MONTHS, errors);
  } else if (rawMonths !== null) errors.push({ pointer: '/durationInMonths', detail: 'is allowed with duration repeating only' });
  const rawMax = own(body, 'maxRedemptions') ?? null;
  const maxRedemptions = rawMax === null ? null : integer(rawMax, '/maxRedemptions', 1, MAX_REDEMPTIONS, errors);
  const rawRedeemBy = own(body, 'redeemBy') ?? null;
  const redeemBy = rawRedeemBy === null ? null : instant(rawRedeemBy, '/redeemBy', errors);
  const appliesTo = appliesToOf(own(body, 'appliesTo') ?? null, errors);
  if (errors.length > 0) throw new ValidationError('The coupon is invalid', errors);
  return {
    code: couponCode!,
    name: name!,
    percentOff: percentOff!,
    amountOff: amountOff!,
    duration: duration as CouponDuration,
    durationInMonths: durationInMonths!,
    maxRedemptions: maxRedemptions!,
    redeemBy: redeemBy!,
    appliesTo: appliesTo!,
  };
}

/** PUT /coupons/{id}: name, maxRedemptions (null: unlimited), redeemBy (null: none); nothing else. */
export function validateUpdateCoupon(body: unknown): UpdateCouponInput {
  if (!isJsonObject(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  const errors: FieldError[] = [];
  refuseUnknown(body, UPDATE_MEMBERS, '', errors);
  const input: { -readonly [K in keyof UpdateCouponInput]: UpdateCouponInput[K] } = {};
  if (own(body, 'name') !== undefined) input.name = text(body.name, '/name', 1, 250, errors);
  const max = own(body, 'maxRedemptions');
  if (max !== undefined) input.maxRedemptions = max === null ? null : integer(max, '/maxRedemptions', 1, MAX_REDEMPTIONS, errors);
  const redeemBy = own(body, 'redeemBy');
  if (redeemBy !== undefined) input.redeemBy = redeemBy === null ? null : instant(redeemBy, '/redeemBy', errors);
  if (errors.length > 0) throw new ValidationError('The coupon update is invalid', errors);
  return input;
}

/** 0.01–100 with at most 2 decimals (3 decimals is a 422, never rounded). */
function percent(value: unknown, pointer: string, errors: FieldError[]): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    errors.push({ pointer, detail: 'must be a number from 0.01 to 100' });
    return undefined;
  }
  try {
    const scaled = parseScaledDecimal(value, PERCENT_SCALE, pointer);
    if (scaled >= 1n && scaled <= 10000n) return value;
    errors.push({ pointer, detail: 'must be a number from 0.01 to 100' });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.push(...error.errors);
  }
  return undefined;
}

function appliesToOf(value: unknown, errors: FieldError[]): CouponTerms['appliesTo'] | undefined {
  if (value === null) return null;
  if (!isJsonObject(value)) {
    errors.push({ pointer: '/appliesTo', detail: 'must be an object {productIds: [...]}' });
    return undefined;
  }
  refuseUnknown(value, ['productIds'], '/appliesTo', errors);
  const productIds = uuids(own(value, 'productIds'), '/appliesTo/productIds', MAX_APPLIES_TO_PRODUCTS, errors);
  return productIds && { productIds };
}

/** The Coupon aggregate as one value: what it folds (couponEvolver) and what each of its commands decides. */
export const couponDecider = deciderOf(couponEvolver, {
  CreateCoupon: decideCreateCoupon,
  UpdateCoupon: decideUpdateCoupon,
  ArchiveCoupon: decideArchiveCoupon,
  RedeemCoupon: decideRedeemCoupon,
});
