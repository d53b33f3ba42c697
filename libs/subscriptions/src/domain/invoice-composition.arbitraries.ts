import { chargeLines, componentLabel, PriceComponent, priceComponents, PriceModel, PricingEntry } from '@billing/catalog';
import { foldEvents } from '@billing/shared-kernel';
import { ItemCharge } from './billing';
import { CatalogPricing, ChargedPrice } from './invoice-composition';
import { Subscription, subscriptionEvolver } from './subscription';
import { ItemSchedule, SubscriptionItem } from './subscription-events';
import { created } from './subscription.arbitraries';

/** Fixtures of the invoice composition tests: the catalog's real pricing maths, as the billing engine passes it. */

export const PRICING: CatalogPricing<PriceComponent> = { chargeLines, componentLabel };
export const USAGE: ItemSchedule = {
  purchase: 'recurring',
  termCount: 1,
  termUnit: 'month',
  billingTiming: 'event_based',
  metricCode: 'calls',
} as ItemSchedule;
export const JAN = { start: '2026-01-01', end: '2026-01-31' };

export function priceOf(name: string, model: PriceModel, entry: PricingEntry | null): ChargedPrice<PriceComponent> {
  return { name, componentsAt: entry === null ? null : (quantity) => priceComponents(model, entry, quantity) };
}

export function subscriptionWith(items: readonly SubscriptionItem[], timeZone = 'UTC'): Subscription {
  return foldEvents(subscriptionEvolver, [created({ term: { start: '2026-01-01', end: null }, items, timeZone })]) as Subscription;
}

export function chargeOf(itemId: string, kind: ItemCharge['kind'], billAt: string, period = JAN, daysUsed = 31, daysInFullPeriod = 31): ItemCharge {
  return { itemId, kind, billAt: new Date(billAt), period, daysUsed, daysInFullPeriod };
}
