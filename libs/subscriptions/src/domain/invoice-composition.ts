import {
  DomainError,
  QUANTITY_SCALE,
  ValidationError,
  assertAmountInRange,
  discountAmounts,
  DiscountableLine,
  formatScaledDecimal,
  parseScaledDecimal,
} from '@billing/shared-kernel';
import { DueBilling } from './billing';
import { CustomerDiscountTerms, customerDiscountsFor, discountsFor } from './discounts';
import { Period, proRate } from './periods';
import { Subscription } from './subscription';
import { ProrationLine, ProrationReason, SubscriptionCustomer, SubscriptionItem, UsageCharge, UsageCorrection, UsageLineRange } from './subscription-events';
import { localDateOf } from './time-zone';
import { USAGE_SCALE } from './usage';

/**
 * Invoice composition: which invoice lines the charges due at one billAt
 * produce, with nothing read and nothing written (the billing engine loads the
 * inputs, creates and books the invoice; a preview can call the same function).
 *
 * - A fixed charge (advance, arrears, one-time) bills its price's components at
 *   the item's quantity for a FULL period, pro-rated to the days used
 *   (`proRate`: days counted in the subscription's own calendar, rounded half
 *   away from zero once), split over the components as discounts (the catalog's
 *   chargeLines): each line keeps `amount = unitAmount × quantity − discount`.
 * - An event_based charge bills its period's rated usage, never pro-rated: per
 *   price version that holds a share of it, that version's lines.
 * - Late usage of periods booked before bills the difference as one correction
 *   line each.
 * - Proration lines (a change's credit and charge, a cancel now's credit) bill
 *   as one line each, the amount recorded when they were made.
 * Lines come in that order: fixed, usage (`usageLines` says where), corrections,
 * prorations.
 *
 * The catalog's pricing maths comes in as a port (`CatalogPricing`): a domain
 * depends on the shared kernel only, and the engine passes the catalog's own
 * functions, so there is one pricing maths.
 */

/** A part of a price, as the catalog's priceComponents gives it: quantity (scaled by 10^4) × unitAmount, rounded to amount. */
export interface PricedComponent {
  readonly quantity: bigint;
  readonly unitAmount: bigint;
  readonly amount: bigint;
}

/** A component billed in part: what it gives up is its discount (the catalog's ChargeLine). */
export interface ComponentLine<Component extends PricedComponent> {
  readonly component: Component;
  readonly discount: bigint;
  readonly amount: bigint;
}

/** What composition needs of the catalog: the engine passes chargeLines and componentLabel. */
export interface CatalogPricing<Component extends PricedComponent> {
  /** A share (`billed`) of the components' total split over them, as discounts. */
  readonly chargeLines: (components: readonly Component[], billed: bigint) => readonly ComponentLine<Component>[];
  /** How a line names its component after the charge's description ('' for a fee price's units). */
  readonly componentLabel: (component: Component) => string;
}

/** A price an item names, as the catalog knows it now. */
export interface ChargedPrice<Component extends PricedComponent> {
  readonly name: string;
  /** The price's components for a full period at a quantity (scaled by 10^4), in the subscription's currency; null: no pricing in it any more. */
  readonly componentsAt: ((quantity: bigint) => readonly Component[]) | null;
}

/** A period's usage rated at the price versions in force when it happened, with each version's lines (the usage store's rating). */
export interface RatedPeriod<Component extends PricedComponent> {
  readonly metric: { readonly name: string; readonly code: string };
  readonly rated: {
    readonly quantity: bigint;
    readonly amount: bigint;
    readonly segments: readonly { readonly quantity: bigint; readonly version: { readonly effectiveAt: string } }[];
  };
  /** Per segment (same order), its lines. */
  readonly lines: readonly (readonly ComponentLine<Component>[])[];
}

/** A booked usage period re-rated now: what it was billed at (`record`) and what it comes to now. */
export interface ReratedPeriod {
  readonly item: SubscriptionItem;
  readonly metricName: string;
  readonly record: UsageCharge;
  readonly now: UsageCharge;
}

export interface InvoiceCompositionInput<Component extends PricedComponent> {
  readonly subscription: Subscription;
  /** The charges due at one billAt (nextDue or retryDue) and the proration lines billed with them. */
  readonly due: Pick<DueBilling, 'billAt' | 'charges' | 'prorations'>;
  /** By price id: the prices the charged items name (absent: gone from the catalog). */
  readonly prices: ReadonlyMap<string, ChargedPrice<Component>>;
  /** By item id, for each event_based charge: its period's usage rated, or the domain error that kept it from being rated. */
  readonly usage: ReadonlyMap<string, RatedPeriod<Component> | DomainError>;
  /** Booked usage periods re-rated now (the ones that could be), in the subscription's order. */
  readonly rerated: readonly ReratedPeriod[];
  /** The discounts of the customer record the subscription names (none without one), in the order applied. */
  readonly customerDiscounts?: readonly CustomerDiscountTerms[];
}

/** An invoice line as the invoicing context's create command takes it. */
export interface ComposedLine {
  readonly title: string;
  readonly description: string;
  readonly sku?: string | null;
  readonly periodStart: string | null;
  readonly periodEnd: string | null;
  readonly quantity: number;
  readonly unitAmount: number;
  readonly discount?: { readonly amount: number } | null;
  readonly taxCode: string | null;
}

export interface ComposedInvoice {
  readonly customer: SubscriptionCustomer;
  /** uppercase ISO 4217 */
  readonly currency: string;
  /** The billAt's date in the subscription's time zone. */
  readonly date: string;
  readonly memo: string;
  readonly lines: readonly ComposedLine[];
}

export type InvoiceComposition =
  | {
      readonly kind: 'composed';
      /** Per charged item: the full-period amount (a usage item: its rated usage), as decideBillDue takes it. */
      readonly amounts: Readonly<Record<string, bigint>>;
      readonly usage: readonly UsageCharge[];
      readonly corrections: readonly UsageCorrection[];
      readonly usageLines: UsageLineRange;
      readonly invoice: ComposedInvoice;
      /** The customer's once discounts this invoice uses up (UseCustomerDiscountsCommand, with the invoice). */
      readonly customerDiscountsUsed: readonly string[];
    }
  /** The first charge (in due order) that cannot be priced or rated: it alone waits for its retry. */
  | { readonly kind: 'failed'; readonly itemId: string; readonly error: DomainError };

export function composeInvoice<Component extends PricedComponent>(
  input: InvoiceCompositionInput<Component>,
  pricing: CatalogPricing<Component>,
): InvoiceComposition {
  const { subscription, due, prices } = input;
  const amounts: Record<string, bigint> = {};
  const usage: UsageCharge[] = [];
  const fixedLines: PricedLine[] = [];
  const usageLines: PricedLine[] = [];
  for (const charge of due.charges) {
    const item = subscription.items.find((candidate) => candidate.id === charge.itemId)!;
    try {
      const price = prices.get(item.priceId);
      if (!price || price.componentsAt === null) {
        throw ValidationError.at(`/items/${item.id}`, `price ${item.priceId} has no pricing in ${subscription.currency.toUpperCase()} any more`);
      }
      if (charge.kind === 'event_based') {
        const rated = input.usage.get(item.id);
        if (rated === undefined) throw new RangeError(`the usage of item ${item.id} was not rated`);
        if (rated instanceof DomainError) throw rated;
        const billed = usageChargeOf(item.id, charge.period!, rated);
        amounts[item.id] = rated.rated.amount;
        usage.push(billed);
        usageLines.push(...pricedUsageLines(item, price.name, rated, charge.period!, pricing));
        continue;
      }
      const components = price.componentsAt(parseScaledDecimal(item.quantity, QUANTITY_SCALE, `/items/${item.id}/quantity`));
      const full = components.reduce((sum, component) => sum + component.amount, 0n);
      amounts[item.id] = full;
      // A pro-rated period bills a share of the price: its lines show the whole quantity, less the unused days as a discount.
      const billed = proRate(full, charge.daysUsed, charge.daysInFullPeriod);
      fixedLines.push(
        ...pricing
          .chargeLines(components, billed)
          .map((line) => pricedLine(line, lineOf(line, price.name, item.product.name, item, charge.period, pricing), item)),
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { kind: 'failed', itemId: item.id, error };
    }
  }
  const changed = input.rerated.filter(({ record, now }) => now.quantity !== record.quantity || now.amount !== record.amount);
  const corrections = changed.map(({ record, now }) => correctionOf(record, now));
  const correctionLines = changed.map(({ item, metricName }, index) => correctionLineOf(item, metricName, corrections[index]));
  const date = localDateOf(due.billAt, subscription.timeZone);
  const { lines, customerDiscountsUsed } = discounted(subscription, input, date, [...fixedLines, ...usageLines], correctionLines);
  return {
    kind: 'composed',
    amounts,
    usage,
    corrections,
    usageLines: { first: fixedLines.length, count: usageLines.length },
    invoice: {
      customer: subscription.customer,
      currency: subscription.currency.toUpperCase(),
      date,
      memo: `Subscription ${subscription.handle}`,
      lines: [...lines, ...correctionLines, ...due.prorations.map(prorationLineOf)],
    },
    customerDiscountsUsed,
  };
}

/** What a rated period bills: its quantity and amount (refused beyond the largest amount, at the item). */
export function usageChargeOf<Component extends PricedComponent>(itemId: string, period: Period, { rated }: RatedPeriod<Component>): UsageCharge {
  return { itemId, period, quantity: formatScaledDecimal(rated.quantity, USAGE_SCALE), amount: Number(assertAmountInRange(rated.amount, `/items/${itemId}`)) };
}

/** Late usage of a booked period: its new totals and the difference to bill now. */
function correctionOf(record: UsageCharge, now: UsageCharge): UsageCorrection {
  const quantityDelta = formatScaledDecimal(
    parseScaledDecimal(now.quantity, USAGE_SCALE, '/quantity') - parseScaledDecimal(record.quantity, USAGE_SCALE, '/quantity'),
    USAGE_SCALE,
  );
  return { itemId: record.itemId, period: record.period, quantity: now.quantity, amount: now.amount, quantityDelta, amountDelta: now.amount - record.amount };
}

/**
 * An event_based charge's invoice lines: per price version that billed a share
 * of the period's usage (one without a price change), the components of its
 * price at the period's quantity (tier units, flat amounts, packages: see the
 * catalog's chargeLines), each quantity × unit amount, less the share other
 * versions bill.
 */
export function usageLinesOf<Component extends PricedComponent>(
  item: SubscriptionItem,
  priceName: string,
  usage: RatedPeriod<Component>,
  period: Period,
  pricing: CatalogPricing<Component>,
): ComposedLine[] {
  return pricedUsageLines(item, priceName, usage, period, pricing).map(({ line }) => line);
}

function pricedUsageLines<Component extends PricedComponent>(
  item: SubscriptionItem,
  priceName: string,
  usage: RatedPeriod<Component>,
  period: Period,
  pricing: CatalogPricing<Component>,
): PricedLine[] {
  const { metric, rated } = usage;
  const total = formatScaledDecimal(rated.quantity, USAGE_SCALE);
  const several = rated.segments.length > 1;
  return rated.segments.flatMap((segment, index) => {
    const description = several
      ? `${metric.name}: ${formatScaledDecimal(segment.quantity, USAGE_SCALE)} of ${total}, at the price in force from ${segment.version.effectiveAt}`
      : `${metric.name}: ${total}`;
    return usage.lines[index].map((line) => pricedLine(line, { ...lineOf(line, priceName, description, item, period, pricing), sku: metric.code }, item));
  });
}

/** A charge's line with what discounting needs: its amount (after pro-rating) and its product. */
interface PricedLine extends DiscountableLine {
  readonly line: ComposedLine;
}

function pricedLine<Component extends PricedComponent>(charged: ComponentLine<Component>, line: ComposedLine, item: SubscriptionItem): PricedLine {
  return { line, amount: charged.amount, productId: item.product.id };
}

/**
 * The charge lines with the discounts taken off (the shared kernel's
 * discountAmounts says how): the subscription's own first, in the order
 * given, then its customer record's, in the order applied. An invoice line
 * carries one discount amount, so a line's pro-rating and every coupon's part
 * add up in it, and `amount = unitAmount × quantity − discount` holds. The
 * invoice's period starts at its earliest charged period (its date for
 * one-time charges only); its subtotal, for a promotion code's minimum, is
 * every line's amount before coupons.
 */
function discounted(
  subscription: Subscription,
  { due, customerDiscounts }: Pick<InvoiceCompositionInput<PricedComponent>, 'due' | 'customerDiscounts'>,
  date: string,
  lines: readonly PricedLine[],
  corrections: readonly ComposedLine[],
): { lines: ComposedLine[]; customerDiscountsUsed: string[] } {
  const starts = due.charges.flatMap((charge) => (charge.period ? [charge.period.start] : []));
  const periodStart = starts.length === 0 ? date : starts.reduce((first, start) => (start < first ? start : first));
  const subtotal = lines.reduce((sum, { amount }) => sum + amount, 0n) + corrections.reduce((sum, line) => sum + BigInt(line.unitAmount), 0n);
  const customer = customerDiscountsFor(customerDiscounts ?? [], periodStart, subtotal, subscription.currency.toUpperCase());
  const discounts = [...discountsFor(subscription.discounts, periodStart, subtotal), ...customer.applied];
  if (discounts.length === 0) return { lines: lines.map(({ line }) => line), customerDiscountsUsed: customer.used };
  const off = discountAmounts(lines, discounts);
  return {
    lines: lines.map(({ line }, index) => {
      if (off[index] === 0n) return line;
      return { ...line, discount: { amount: (line.discount?.amount ?? 0) + Number(off[index]) } };
    }),
    customerDiscountsUsed: customer.used,
  };
}

/** One invoice line of a charge: its component's quantity × unit amount, its discount, the component named after the description. */
function lineOf<Component extends PricedComponent>(
  line: ComponentLine<Component>,
  title: string,
  description: string,
  item: SubscriptionItem,
  period: Period | null,
  pricing: CatalogPricing<Component>,
): ComposedLine {
  const label = pricing.componentLabel(line.component);
  return {
    title,
    description: label === '' ? description : `${description}, ${label}`,
    periodStart: period?.start ?? null,
    periodEnd: period?.end ?? null,
    quantity: Number(formatScaledDecimal(line.component.quantity, QUANTITY_SCALE)),
    unitAmount: Number(line.component.unitAmount),
    discount: line.discount === 0n ? null : { amount: Number(line.discount) },
    taxCode: item.taxCode,
  };
}

/** A correction line: late usage of an earlier, booked period, as the difference in amount. */
function correctionLineOf(item: SubscriptionItem, metricName: string, correction: UsageCorrection): ComposedLine {
  return {
    title: `Correction: ${item.priceName}`,
    description: `${metricName}: late usage of ${correction.period.start} – ${correction.period.end}: ${correction.quantityDelta} (now ${correction.quantity})`,
    sku: null,
    periodStart: correction.period.start,
    periodEnd: correction.period.end,
    quantity: 1,
    unitAmount: correction.amountDelta,
    taxCode: item.taxCode,
  };
}

/** How a proration line is worded, per reason and kind: its title's start and its description's end. */
const PRORATION_WORDING: Record<ProrationReason, Record<ProrationLine['kind'], readonly [string, string]>> = {
  cancellation: { credit: ['Unused time', 'unused after cancellation'], charge: ['Time used', 'used before cancellation'] },
  change: { credit: ['Unused time', 'unused after the change'], charge: ['Remaining time', 'after the change'] },
  used_before_change: { credit: ['Unused time', 'unused before the change'], charge: ['Time used', 'used before the change'] },
  pause: { credit: ['Unused time', 'unused while paused'], charge: ['Time used', 'used before the pause'] },
  resume: { credit: ['Unused time', 'unused after resuming'], charge: ['Remaining time', 'after resuming'] },
};

/**
 * A proration line: quantity 1, the amount recorded (a credit's negative), its days as the period, the
 * item's tax code (tax is credited or charged with it). Coupons take nothing off it: it is the price's share
 * before coupons, like the credit of what was billed.
 */
function prorationLineOf(proration: ProrationLine): ComposedLine {
  const { item, kind, reason, days, daysInFullPeriod, period, amount } = proration;
  const [title, wording] = PRORATION_WORDING[reason][kind];
  return {
    title: `${title}: ${item.priceName}`,
    description: `${item.product.name}: ${days} of ${daysInFullPeriod} days ${wording}`,
    sku: null,
    periodStart: period.start,
    periodEnd: period.end,
    quantity: 1,
    unitAmount: kind === 'credit' ? -amount : amount,
    taxCode: item.taxCode,
  };
}

/**
 * A pending draft's lines at the end of its grace period: its usage lines
 * (`range`) replaced by the usage re-rated now, the lines around them kept.
 */
export function withUsageLines<Line>(kept: readonly Line[], range: UsageLineRange, usageLines: readonly Line[]): Line[] {
  return [...kept.slice(0, range.first), ...usageLines, ...kept.slice(range.first + range.count)];
}
