import { ValidationError } from './domain-error';

/**
 * Amounts are int64 cents in the interface, but JSON numbers are only exact up
 * to 2^53 - 1 in most clients. The service therefore accepts and produces
 * amounts within +-(2^53 - 1); a result beyond that is a 422, never a wrong number.
 */
export const MAX_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

export function assertAmountInRange(value: bigint, pointer: string): bigint {
  if (value > MAX_AMOUNT || value < -MAX_AMOUNT) {
    throw ValidationError.at(pointer, `amount exceeds the supported range of +-${MAX_AMOUNT}`, 'amount-out-of-range');
  }
  return value;
}
