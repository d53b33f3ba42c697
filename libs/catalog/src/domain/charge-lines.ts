import { splitByLargestRemainder } from '@billing/shared-kernel';
import type { PriceComponent } from './pricing';

/**
 * The invoice lines of one charge: the components of its price at the quantity
 * billed (the catalog's priceComponents), each `quantity × unitAmount`, less a
 * discount when the charge bills only a share of that price.
 *
 * A share arises twice, both as round(P(Q) × part ÷ whole): a pro-rated period
 * (days used of the full period) and one price version's share of a period's
 * usage (round(P_v(Q) × q_v ÷ Q)). The billed amount is split over the
 * components in proportion to their amounts by largest remainder (ties to the
 * earlier component), and each line's discount is what its component gives up:
 * so every line keeps `amount = unitAmount × quantity − discount` with the real
 * quantity, no discount is negative or exceeds its line, and the lines add up
 * to the billed amount exactly.
 */
export interface ChargeLine {
  readonly component: PriceComponent;
  readonly discount: bigint;
  /** component.amount − discount */
  readonly amount: bigint;
}

export function chargeLines(components: readonly PriceComponent[], billed: bigint): ChargeLine[] {
  const whole = components.reduce((sum, component) => sum + component.amount, 0n);
  if (billed < 0n || billed > whole) throw new RangeError(`a charge bills 0 to ${whole} of its price, not ${billed}`);
  if (billed === whole) return components.map((component) => ({ component, discount: 0n, amount: component.amount }));
  const shares = splitByLargestRemainder(
    billed,
    components.map((component) => component.amount),
  );
  return components.map((component, index) => ({ component, discount: component.amount - shares[index], amount: shares[index] }));
}

/**
 * The lines of one price version's share of a period's usage: billed =
 * round(P_v(Q) × q_v ÷ Q). When that is exactly what the version's own quantity
 * q_v costs at its price (always for a fee price and whole units: each event
 * at its own unit price), the lines are the components at q_v; otherwise (tiers reached by the
 * whole quantity, a flat amount shared) the components at Q, less the share the
 * other versions bill.
 */
export function versionShareLines(
  componentsAt: (quantity: bigint) => readonly PriceComponent[],
  quantity: bigint,
  share: bigint,
  billed: bigint,
): ChargeLine[] {
  const own = componentsAt(share);
  if (own.reduce((sum, component) => sum + component.amount, 0n) === billed) return chargeLines(own, billed);
  return chargeLines(componentsAt(quantity), billed);
}

/** How a line names its component after the charge's own description ('' for a fee price's units). */
export function componentLabel(component: PriceComponent): string {
  const { tier } = component;
  const range = tier === null ? '' : tier.upTo === null ? `over ${tier.from}` : `${tier.from}–${tier.upTo}`;
  switch (component.kind) {
    case 'units':
      return tier === null ? '' : `tier ${tier.number} (${range})`;
    case 'flat':
      return `tier ${tier!.number} (${range}) flat amount`;
    case 'packages':
      return 'started packages';
  }
}
