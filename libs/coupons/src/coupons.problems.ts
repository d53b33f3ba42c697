import { ProblemType } from '@billing/platform';

/** The coupons' problem types (served at /problems/<code>), declared with the context. */
export const COUPONS_PROBLEMS: Record<string, ProblemType> = {
  'coupon-exists': { status: 409, title: 'Conflict', description: 'A coupon with this id already exists.' },
  'coupon-code-taken': { status: 409, title: 'Conflict', description: 'Another coupon of the environment has this code (codes are case-insensitive).' },
  'coupon-archived': {
    status: 409,
    title: 'Conflict',
    description: 'The coupon is archived: it takes no new redemptions, promotion codes or changes. Discounts already applied run their course.',
  },
  'coupon-expired': { status: 409, title: 'Conflict', description: "The coupon's redeemBy has passed on the environment's clock." },
  'coupon-exhausted': { status: 409, title: 'Conflict', description: 'The coupon has been redeemed maxRedemptions times.' },
  'promotion-code-exists': { status: 409, title: 'Conflict', description: 'A promotion code with this id already exists.' },
  'promotion-code-taken': {
    status: 409,
    title: 'Conflict',
    description: 'Another promotion code of the environment has this code (codes are case-insensitive).',
  },
  'promotion-code-archived': { status: 409, title: 'Conflict', description: 'The promotion code is archived: it takes no new redemptions.' },
  'promotion-code-expired': { status: 409, title: 'Conflict', description: "The promotion code's expiresAt has passed on the environment's clock." },
  'promotion-code-exhausted': { status: 409, title: 'Conflict', description: 'The promotion code has been redeemed maxRedemptions times.' },
  'promotion-code-restricted': {
    status: 409,
    title: 'Conflict',
    description: 'The promotion code is for first-time customers only: a customer record (customerId) with no subscription yet.',
  },
};
