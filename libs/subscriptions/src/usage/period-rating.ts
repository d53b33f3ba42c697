import { amountForScaledQuantity, ChargeLine, PriceModel, priceComponents, PricingEntry, versionShareLines } from '@billing/catalog';
import { addDays, ValidationError } from '@billing/shared-kernel';
import { BillableMetric, Period, PriceVersion, rateShares, RatedUsage, startOfDayIn, Subscription, SubscriptionItem, UsageShares } from '../domain';

/** What a usage period comes to: the rated usage, the metric, and the instants it covers. */
export interface PeriodUsage {
  readonly metric: BillableMetric;
  readonly from: Date;
  readonly to: Date;
  readonly rated: RatedUsage<{ readonly effectiveAt: string; readonly entry: PricingEntry }>;
  /**
   * Per segment (same order), its invoice lines (versionShareLines): with one
   * version, the components of its price at the period's quantity.
   */
  readonly lines: readonly (readonly ChargeLine[])[];
}

/** The instants a period of dates covers in the subscription's time zone: [start of its first day, start of the day after its last). */
export function periodInstants(subscription: Pick<Subscription, 'timeZone'>, period: Period): { from: Date; to: Date } {
  return { from: startOfDayIn(period.start, subscription.timeZone), to: startOfDayIn(addDays(period.end, 1), subscription.timeZone) };
}

/** A version of a price as the subscriptions context keeps it (subscription_price_versions): when it took effect, its pricing per currency. */
export interface StoredPriceVersion {
  readonly effectiveAt: Date;
  readonly pricing: Readonly<Record<string, PricingEntry>>;
}

/** A price version as rating uses it: when it took effect (ms) and its pricing in the subscription's currency. */
export type CurrencyPriceVersion = PriceVersion<{ readonly effectiveAt: string; readonly entry: PricingEntry }>;

/**
 * The versions of a price that price a currency, in order. A version without the currency leaves the previous one in
 * force (a price always keeps a currency a subscription bills in, or rating fails: ratePeriodUsage).
 */
export function currencyVersions(versions: readonly StoredPriceVersion[], currency: string): CurrencyPriceVersion[] {
  return versions.flatMap((stored) => {
    const entry = stored.pricing[currency];
    return entry === undefined ? [] : [{ from: stored.effectiveAt.getTime(), version: { effectiveAt: stored.effectiveAt.toISOString(), entry } }];
  });
}

/**
 * What rating one item's usage period reads: the metric and price (null: gone), the price's versions in order, and
 * the period's usage attributed to `currencyVersions(versions, currency)` (aggregated in SQL by the usage store).
 */
export interface PeriodUsageFacts {
  readonly metric: BillableMetric | null;
  /** The item's price model; null when the price is gone. */
  readonly priceModel: PriceModel | null;
  readonly versions: readonly StoredPriceVersion[];
  readonly shares: UsageShares;
}

/**
 * Rates an item's usage in [from, to) from the facts the usage store read:
 * the metric's aggregate (attributed to the versions), priced at each version of the
 * item's price in the currency. Pure (the store reads, this rates), so the
 * engine, GET /subscriptions/{id}/usage, the upcoming invoice and the
 * property tests rate alike. Throws a ValidationError (a billing failure the
 * engine records and retries) when the metric or the pricing is missing.
 */
export function ratePeriodUsage(item: SubscriptionItem, currency: string, facts: PeriodUsageFacts, from: Date, to: Date): PeriodUsage {
  const { metric, priceModel } = facts;
  const code = item.schedule.purchase === 'recurring' ? item.schedule.metricCode : undefined;
  if (metric === null) throw ValidationError.at(`/items/${item.id}`, `the billable metric '${code}' does not exist`);
  const versions = currencyVersions(facts.versions, currency);
  if (priceModel === null || versions.length === 0) {
    throw ValidationError.at(`/items/${item.id}`, `price ${item.priceId} has no pricing in ${currency.toUpperCase()}`);
  }
  const rated = rateShares(facts.shares, versions, to.getTime(), (version, quantity) => amountForScaledQuantity(priceModel, version.entry, quantity));
  const lines = rated.segments.map((segment) =>
    versionShareLines((quantity) => priceComponents(priceModel, segment.version.entry, quantity), rated.quantity, segment.quantity, segment.amount),
  );
  return { metric, from, to, rated, lines };
}
