/**
 * The one rounding rule of the service: half away from zero, applied when an
 * exact rational amount (numerator / denominator) must become whole cents.
 * 2.5 -> 3, -2.5 -> -3, so a credit note mirrors its invoice to the cent.
 */
export function divideRoundingHalfAwayFromZero(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = (n * 2n + d) / (2n * d);
  return negative ? -quotient : quotient;
}

/** Integer ceiling division for non-negative operands (package pricing). */
export function divideRoundingUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n || numerator < 0n) throw new RangeError('expected numerator >= 0 and denominator > 0');
  return (numerator + denominator - 1n) / denominator;
}

/**
 * `total` split over `weights` (non-negative, not all zero when total is not
 * zero) in proportion, in whole units, by the largest-remainder rule: each
 * share is first rounded down, and the units left go one each to the largest
 * remainders (ties to the earlier weight). The shares add up to `total`
 * exactly, and with 0 ≤ total ≤ Σweights no share exceeds its weight.
 */
export function splitByLargestRemainder(total: bigint, weights: readonly bigint[]): bigint[] {
  const whole = weights.reduce((sum, weight) => sum + weight, 0n);
  if (total === 0n) return weights.map(() => 0n);
  if (whole <= 0n) throw new RangeError('a total is split over weights with a positive sum');
  const shares = weights.map((weight) => (total * weight) / whole);
  const remainders = weights.map((weight, index) => ({ index, remainder: (total * weight) % whole }));
  let left = total - shares.reduce((sum, share) => sum + share, 0n);
  for (const { index } of remainders.sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1))) {
    if (left === 0n) break;
    shares[index] += 1n;
    left -= 1n;
  }
  return shares;
}
