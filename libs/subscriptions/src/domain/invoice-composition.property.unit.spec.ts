import fc from 'fast-check';
import { foldEvents } from '@billing/shared-kernel';
import { nextDue } from './billing';
import { composeInvoice, ComposedLine, InvoiceComposition } from './invoice-composition';
import { chargeOf, PRICING, priceOf } from './invoice-composition.arbitraries';
import { Subscription, subscriptionEvolver } from './subscription';
import { SubscriptionCancelled } from './subscription-events';
import { created, item, MONTHLY_ADVANCE } from './subscription.arbitraries';

/**
 * Invoice composition against an independent oracle: its own half-away-from-zero
 * rounding, its own day counting (UTC day numbers of Date.UTC) and the time
 * zone's calendar date from Intl.
 */

const ONE = 10_000n;
const DAY_MS = 86_400_000;
const TIME_ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kolkata', 'Australia/Lord_Howe'];

/** n ÷ d rounded half away from zero (d > 0), written apart from the shared kernel's. */
function roundDiv(n: bigint, d: bigint): bigint {
  const negative = n < 0n;
  const magnitude = negative ? -n : n;
  const rounded = (magnitude * 2n + d) / (2n * d);
  return negative ? -rounded : rounded;
}

/** A line's amount as an invoice computes it: round(unitAmount × quantity) − discount. */
function lineAmount(line: ComposedLine): { gross: bigint; discount: bigint } {
  const quantity = BigInt(Math.round(line.quantity * 10_000));
  return { gross: roundDiv(BigInt(line.unitAmount) * quantity, ONE), discount: BigInt(line.discount?.amount ?? 0) };
}

function composed(result: InvoiceComposition): Extract<InvoiceComposition, { kind: 'composed' }> {
  if (result.kind !== 'composed') throw new Error(`${result.itemId}: ${result.error.message}`);
  return result;
}

const quantity = fc.bigInt({ min: 1n, max: 100_000_000n });
const decimal = (scaled: bigint) => (Number(scaled) / 10_000).toString();
const days = fc.integer({ min: 1, max: 366 }).chain((full) => fc.tuple(fc.integer({ min: 1, max: full }), fc.constant(full)));
const tiers = fc
  .array(
    fc.record({
      width: fc.integer({ min: 1, max: 1_000 }),
      unitAmount: fc.integer({ min: 0, max: 100_000 }),
      flatAmount: fc.integer({ min: 0, max: 100_000 }),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .map((steps) => {
    let upTo = 0;
    return steps.map(({ width, unitAmount, flatAmount }, index) => {
      upTo += width;
      return { upTo: index === steps.length - 1 ? null : upTo, unitAmount, flatAmount };
    });
  });

describe('composeInvoice (properties)', () => {
  const subscriptionOf = (scaled: bigint) =>
    foldEvents(subscriptionEvolver, [
      created({ term: { start: '2026-01-01', end: null }, items: [{ ...item('a', MONTHLY_ADVANCE), quantity: decimal(scaled) }] }),
    ]) as Subscription;

  it('a fee price: full = round(unitAmount × quantity), billed = round(full × days used ÷ days in the period), the lines add up to it', () => {
    fc.assert(
      fc.property(quantity, fc.integer({ min: 0, max: 1_000_000 }), days, (scaled, unitAmount, [used, full]) => {
        const result = composed(
          composeInvoice(
            {
              subscription: subscriptionOf(scaled),
              due: {
                billAt: new Date('2026-01-01T00:00:00Z'),
                charges: [chargeOf('a', 'advance', '2026-01-01T00:00:00Z', undefined, used, full)],
                prorations: [],
              },
              prices: new Map([['price-a', priceOf('Fee', 'fee', { unitAmount })]]),
              usage: new Map(),
              rerated: [],
            },
            PRICING,
          ),
        );
        const fullAmount = roundDiv(BigInt(unitAmount) * scaled, ONE);
        expect(result.amounts).toEqual({ a: fullAmount });
        const lines = result.invoice.lines.map(lineAmount);
        expect(lines.reduce((sum, { gross, discount }) => sum + gross - discount, 0n)).toBe(roundDiv(fullAmount * BigInt(used), BigInt(full)));
      }),
    );
  });

  it('tiered prices: every line keeps amount = unitAmount × quantity − discount with 0 ≤ discount ≤ its gross, and the lines add up to the pro-rated amount', () => {
    fc.assert(
      fc.property(quantity, tiers, fc.constantFrom('volume' as const, 'graduated' as const), days, (scaled, steps, model, [used, full]) => {
        const result = composed(
          composeInvoice(
            {
              subscription: subscriptionOf(scaled),
              due: {
                billAt: new Date('2026-01-01T00:00:00Z'),
                charges: [chargeOf('a', 'advance', '2026-01-01T00:00:00Z', undefined, used, full)],
                prorations: [],
              },
              prices: new Map([['price-a', priceOf('Tiers', model, { tiers: steps })]]),
              usage: new Map(),
              rerated: [],
            },
            PRICING,
          ),
        );
        const lines = result.invoice.lines.map(lineAmount);
        for (const { gross, discount } of lines) {
          expect(discount).toBeGreaterThanOrEqual(0n);
          expect(discount).toBeLessThanOrEqual(gross);
        }
        // At full use nothing is given up: the whole quantity at the tier prices.
        if (used === full) expect(lines.every(({ discount }) => discount === 0n)).toBe(true);
        expect(lines.reduce((sum, { gross }) => sum + gross, 0n)).toBe(result.amounts.a);
        expect(lines.reduce((sum, { gross, discount }) => sum + gross - discount, 0n)).toBe(roundDiv(result.amounts.a * BigInt(used), BigInt(full)));
      }),
    );
  });

  it('a cancelled first month: pro-rated by the calendar days it is used, dated on the billAt in the subscription’s time zone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 364 }),
        fc.integer({ min: 0, max: 40 }),
        fc.constantFrom(...TIME_ZONES),
        fc.integer({ min: 1, max: 1_000_000 }),
        (anchorDay, cancelAfter, timeZone, unitAmount) => {
          const anchorAt = new Date(Date.UTC(2026, 0, 1) + anchorDay * DAY_MS);
          // Days 1–28 only, so that Date.UTC's month step (which overflows, Jan 31 + 1 month = Mar 3) is the calendar's.
          if (anchorAt.getUTCDate() > 28) return;
          const anchor = anchorAt.toISOString().slice(0, 10);
          const cancelAt = new Date(anchorAt.getTime() + cancelAfter * DAY_MS).toISOString().slice(0, 10);
          const cancelled: SubscriptionCancelled = {
            type: 'SubscriptionCancelled',
            schemaVersion: 1,
            data: { subscriptionId: 'sub-1', cancelAt, cancelledAt: `${anchor}T00:00:00.000Z` },
          };
          const subscription = foldEvents(subscriptionEvolver, [created({ term: { start: anchor, end: null }, timeZone }), cancelled]) as Subscription;
          const due = nextDue(subscription)!;
          const result = composed(
            composeInvoice(
              { subscription, due, prices: new Map([['price-a', priceOf('Fee', 'fee', { unitAmount })]]), usage: new Map(), rerated: [] },
              PRICING,
            ),
          );

          const nextMonth = Date.UTC(anchorAt.getUTCFullYear(), anchorAt.getUTCMonth() + 1, anchorAt.getUTCDate());
          const daysInMonth = (nextMonth - anchorAt.getTime()) / DAY_MS;
          const used = Math.min(cancelAfter + 1, daysInMonth);
          const [line] = result.invoice.lines.map(lineAmount);
          expect(line.gross - line.discount).toBe(roundDiv(BigInt(unitAmount) * BigInt(used), BigInt(daysInMonth)));
          const localDate = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(due.billAt);
          expect(result.invoice.date).toBe(localDate);
          expect(result.invoice.date).toBe(anchor);
        },
      ),
    );
  });
});
