import { divideRoundingHalfAwayFromZero } from '@billing/shared-kernel';

/** A subscription item's term unit (subscriptions' TermUnit). */
export type TermUnit = 'day' | 'week' | 'month' | 'year';

/**
 * MRR maths, pure: a period's amount as a month's (the one rounding of normalisation) and the classification of
 * MRR movements. How a subscription's MRR is priced: read-model/subscription-mrr.ts.
 */

/** Months per term unit, as a fraction (numerator, denominator): a year is 12 months, a week 12/52, a day 12/365. */
const MONTHS_PER_UNIT: Record<TermUnit, readonly [bigint, bigint]> = {
  month: [1n, 1n],
  year: [12n, 1n],
  week: [12n, 52n],
  day: [12n, 365n],
};

/**
 * A full period's amount as a month's: yearly ÷ 12, weekly × 52 ÷ 12, daily × 365 ÷ 12, every `termCount` units
 * ÷ termCount; day-exact proration ignored. Rounded half away from zero, once per item.
 */
export function monthlyAmount(fullPeriodAmount: bigint, termCount: number, termUnit: TermUnit): bigint {
  const [months, per] = MONTHS_PER_UNIT[termUnit];
  return divideRoundingHalfAwayFromZero(fullPeriodAmount * per, months * BigInt(termCount));
}

/** How one customer's MRR moved over an interval (each ≥ 0 but churn and contraction, which are ≤ 0). */
export interface MrrMovements {
  readonly new: number;
  readonly expansion: number;
  readonly contraction: number;
  readonly churn: number;
  readonly reactivation: number;
}

export const NO_MOVEMENT: MrrMovements = { new: 0, expansion: 0, contraction: 0, churn: 0, reactivation: 0 };

/**
 * One customer's change of MRR over an interval, classified (per customer and currency, netted over the interval):
 * from 0 to more is `new` the first time the customer has MRR and `reactivation` after it had some before; from
 * more to 0 is `churn`; up is `expansion`, down `contraction`. The movements always add up to `end − start`.
 */
export function classifyMovement(start: number, end: number, hadMrrBefore: boolean): MrrMovements {
  const change = end - start;
  if (change === 0) return NO_MOVEMENT;
  if (start === 0) return hadMrrBefore ? { ...NO_MOVEMENT, reactivation: change } : { ...NO_MOVEMENT, new: change };
  if (end === 0) return { ...NO_MOVEMENT, churn: change };
  return change > 0 ? { ...NO_MOVEMENT, expansion: change } : { ...NO_MOVEMENT, contraction: change };
}

export function addMovements(a: MrrMovements, b: MrrMovements): MrrMovements {
  return {
    new: a.new + b.new,
    expansion: a.expansion + b.expansion,
    contraction: a.contraction + b.contraction,
    churn: a.churn + b.churn,
    reactivation: a.reactivation + b.reactivation,
  };
}

export function movementsTotal(m: MrrMovements): number {
  return m.new + m.expansion + m.contraction + m.churn + m.reactivation;
}

/** A customer's MRR over time: what the intervals' movements are classified from. */
export interface CustomerSeries {
  /** MRR at each boundary, in order (one more value than intervals). */
  readonly mrr: readonly number[];
  /** Per boundary: whether the customer had MRR at any instant before it (so coming back is a reactivation). */
  readonly hadMrrBefore: readonly boolean[];
}

/** Per interval (between consecutive boundaries), the movements of all customers together. */
export function intervalMovements(customers: readonly CustomerSeries[], intervals: number): MrrMovements[] {
  const result: MrrMovements[] = Array.from({ length: intervals }, () => NO_MOVEMENT);
  for (const { mrr, hadMrrBefore } of customers) {
    for (let i = 0; i < intervals; i++) result[i] = addMovements(result[i], classifyMovement(mrr[i], mrr[i + 1], hadMrrBefore[i] || mrr[i] > 0));
  }
  return result;
}
