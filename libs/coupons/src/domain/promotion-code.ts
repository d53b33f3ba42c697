import { CommandMetadata, ConflictError, DomainEvent, Evolver, FieldError, isUuid, NotFoundError, ValidationError, deciderOf } from '@billing/shared-kernel';
import { amountsByCurrency, code, instant, integer, isJsonObject, own, refuseUnknown } from './body';
import { Coupon, MAX_REDEMPTIONS } from './coupon';

/**
 * The PromotionCode aggregate: a code a customer types for a coupon, with its
 * own limit, expiry and restrictions. Redeeming it redeems its coupon: both
 * streams get their redemption event in the applying command's transaction.
 */

export const PROMOTION_CODE_STREAM = 'promotion-code';

export interface PromotionCodeRestrictions {
  /** Only a customer record with no subscription yet may redeem it. */
  readonly firstTimeOnly: boolean;
  /** Per uppercase currency: an invoice is discounted only when its lines total at least this before discounts. */
  readonly minimumAmount: Readonly<Record<string, number>> | null;
}

export interface CreatePromotionCodeInput {
  readonly couponId: string;
  /** As given; unique per environment case-insensitively. */
  readonly code: string;
  readonly maxRedemptions: number | null;
  readonly expiresAt: string | null;
  readonly restrictions: PromotionCodeRestrictions;
}

export interface PromotionCode extends CreatePromotionCodeInput {
  readonly status: 'active' | 'archived';
  readonly id: string;
  readonly timesRedeemed: number;
  readonly createdAt: string;
  readonly archivedAt: string | null;
}
export type PromotionCodeState = { readonly status: 'none' } | PromotionCode;

export type PromotionCodeCreated = DomainEvent<
  'PromotionCodeCreated',
  CreatePromotionCodeInput & { readonly promotionCodeId: string; readonly createdAt: string }
>;
export type PromotionCodeArchived = DomainEvent<'PromotionCodeArchived', { readonly promotionCodeId: string; readonly archivedAt: string }>;
export type PromotionCodeRedeemed = DomainEvent<
  'PromotionCodeRedeemed',
  { readonly promotionCodeId: string; readonly couponId: string; readonly redemptionId: string; readonly redeemedAt: string }
>;
export type PromotionCodeEvent = PromotionCodeCreated | PromotionCodeArchived | PromotionCodeRedeemed;

export function evolvePromotionCode(state: PromotionCodeState, event: PromotionCodeEvent): PromotionCodeState {
  if (event.type === 'PromotionCodeCreated') {
    if (state.status !== 'none') return state;
    const { promotionCodeId, createdAt, ...input } = event.data;
    return { ...input, status: 'active', id: promotionCodeId, timesRedeemed: 0, createdAt, archivedAt: null };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'PromotionCodeArchived':
      return { ...state, status: 'archived', archivedAt: event.data.archivedAt };
    case 'PromotionCodeRedeemed':
      return { ...state, timesRedeemed: state.timesRedeemed + 1 };
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const promotionCodeEvolver: Evolver<PromotionCodeState, PromotionCodeEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: evolvePromotionCode,
};

export function existingPromotionCode(state: PromotionCodeState, promotionCodeId: string): PromotionCode {
  if (state.status === 'none') throw new NotFoundError('promotion code', promotionCodeId);
  return state;
}

function activePromotionCode(state: PromotionCodeState, promotionCodeId: string): PromotionCode {
  const promotionCode = existingPromotionCode(state, promotionCodeId);
  if (promotionCode.status === 'archived') throw new ConflictError('promotion-code-archived', `promotion code ${promotionCode.code} is archived`);
  return promotionCode;
}

/** The coupon must exist (422 at /couponId) and not be archived (409 coupon-archived). */
export function decideCreatePromotionCode(
  command: { promotionCodeId: string; input: CreatePromotionCodeInput; coupon: Coupon | null },
  state: PromotionCodeState,
  meta: CommandMetadata,
): PromotionCodeCreated[] {
  if (state.status !== 'none') throw new ConflictError('promotion-code-exists', `promotion code ${command.promotionCodeId} already exists`);
  if (command.coupon === null) throw ValidationError.at('/couponId', 'names no coupon of this environment');
  if (command.coupon.status === 'archived')
    throw new ConflictError('coupon-archived', `coupon ${command.coupon.id} is archived: it takes no new promotion codes`);
  return [
    {
      type: 'PromotionCodeCreated',
      schemaVersion: 1,
      data: { promotionCodeId: command.promotionCodeId, ...command.input, createdAt: meta.now.toISOString() },
    },
  ];
}

export function decideArchivePromotionCode(command: { promotionCodeId: string }, state: PromotionCodeState, meta: CommandMetadata): PromotionCodeArchived[] {
  const promotionCode = activePromotionCode(state, command.promotionCodeId);
  return [{ type: 'PromotionCodeArchived', schemaVersion: 1, data: { promotionCodeId: promotionCode.id, archivedAt: meta.now.toISOString() } }];
}

/**
 * One redemption of the code: refused when archived (409
 * promotion-code-archived), past expiresAt on the environment's clock (409
 * promotion-code-expired), used up (409 promotion-code-exhausted) or, for a
 * first-time-only code, when the redeemer is not a first-time customer (409
 * promotion-code-restricted). Its coupon is redeemed alongside (decideRedeemCoupon).
 */
export function decideRedeemPromotionCode(
  command: { promotionCodeId: string; redemptionId: string; firstTimeCustomer: boolean },
  state: PromotionCodeState,
  meta: CommandMetadata,
): PromotionCodeRedeemed[] {
  const promotionCode = activePromotionCode(state, command.promotionCodeId);
  if (promotionCode.expiresAt !== null && meta.now.getTime() > Date.parse(promotionCode.expiresAt)) {
    throw new ConflictError('promotion-code-expired', `promotion code ${promotionCode.code} expired at ${promotionCode.expiresAt}`);
  }
  if (promotionCode.maxRedemptions !== null && promotionCode.timesRedeemed >= promotionCode.maxRedemptions) {
    throw new ConflictError(
      'promotion-code-exhausted',
      `promotion code ${promotionCode.code} has been redeemed ${promotionCode.timesRedeemed} of ${promotionCode.maxRedemptions} times`,
    );
  }
  if (promotionCode.restrictions.firstTimeOnly && !command.firstTimeCustomer) {
    throw new ConflictError(
      'promotion-code-restricted',
      `promotion code ${promotionCode.code} is for a first-time customer (a customer record with no subscription yet)`,
    );
  }
  return [
    {
      type: 'PromotionCodeRedeemed',
      schemaVersion: 1,
      data: { promotionCodeId: promotionCode.id, couponId: promotionCode.couponId, redemptionId: command.redemptionId, redeemedAt: meta.now.toISOString() },
    },
  ];
}

// ---------------------------------------------------------------- validation

const MEMBERS = ['couponId', 'code', 'maxRedemptions', 'expiresAt', 'restrictions'];

/** POST /promotion-codes: every problem at its pointer at once; unknown members refused. */
export function validateCreatePromotionCode(body: unknown): CreatePromotionCodeInput {
  if (!isJsonObject(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  const errors: FieldError[] = [];
  refuseUnknown(body, MEMBERS, '', errors);
  const couponId = own(body, 'couponId');
  if (typeof couponId !== 'string' || !isUuid(couponId)) errors.push({ pointer: '/couponId', detail: 'must be the UUID of a coupon' });
  const promotionCode = code(own(body, 'code'), '/code', errors);
  const rawMax = own(body, 'maxRedemptions') ?? null;
  const maxRedemptions = rawMax === null ? null : integer(rawMax, '/maxRedemptions', 1, MAX_REDEMPTIONS, errors);
  const rawExpiresAt = own(body, 'expiresAt') ?? null;
  const expiresAt = rawExpiresAt === null ? null : instant(rawExpiresAt, '/expiresAt', errors);
  const restrictions = restrictionsOf(own(body, 'restrictions') ?? null, errors);
  if (errors.length > 0) throw new ValidationError('The promotion code is invalid', errors);
  return {
    couponId: (couponId as string).toLowerCase(),
    code: promotionCode!,
    maxRedemptions: maxRedemptions!,
    expiresAt: expiresAt!,
    restrictions: restrictions!,
  };
}

function restrictionsOf(value: unknown, errors: FieldError[]): PromotionCodeRestrictions | undefined {
  if (value === null) return { firstTimeOnly: false, minimumAmount: null };
  if (!isJsonObject(value)) {
    errors.push({ pointer: '/restrictions', detail: 'must be an object {firstTimeOnly?, minimumAmount?}' });
    return undefined;
  }
  refuseUnknown(value, ['firstTimeOnly', 'minimumAmount'], '/restrictions', errors);
  const firstTimeOnly = own(value, 'firstTimeOnly') ?? false;
  if (typeof firstTimeOnly !== 'boolean') errors.push({ pointer: '/restrictions/firstTimeOnly', detail: 'must be a boolean' });
  const rawMinimum = own(value, 'minimumAmount') ?? null;
  const minimumAmount = rawMinimum === null ? null : amountsByCurrency(rawMinimum, '/restrictions/minimumAmount', errors);
  return minimumAmount === undefined || typeof firstTimeOnly !== 'boolean' ? undefined : { firstTimeOnly, minimumAmount };
}

/** The PromotionCode aggregate as one value: what it folds (promotionCodeEvolver) and what each of its commands decides. */
export const promotionCodeDecider = deciderOf(promotionCodeEvolver, {
  CreatePromotionCode: decideCreatePromotionCode,
  ArchivePromotionCode: decideArchivePromotionCode,
  RedeemPromotionCode: decideRedeemPromotionCode,
});
