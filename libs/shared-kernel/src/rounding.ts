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
