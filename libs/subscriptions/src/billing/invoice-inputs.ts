import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import { CommandContext } from '@billing/event-store';
import { chargeLines, componentLabel, ExistingPrice, PriceComponent, priceComponents } from '@billing/catalog';
import { CreateInvoiceInput, CustomerDiscountsQuery, UseCustomerDiscountsCommand } from '@billing/invoicing';
import { addDays, DomainError } from '@billing/shared-kernel';
import {
  CatalogPricing,
  ChargedPrice,
  ComposedInvoice,
  composeInvoice,
  CustomerDiscountTerms,
  decideApplyScheduledChange,
  decideBillProrations,
  decideDropChange,
  decideRecordBillingFailure,
  evolveSubscription,
  nextChangeAt,
  priceIdsNamedBy,
  priceIdsOfChange,
  SubscriptionEvent,
  DueBilling,
  InvoiceComposition,
  InvoiceCompositionInput,
  Period,
  ReratedPeriod,
  Subscription,
  SubscriptionItem,
  SubscriptionState,
  upcomingBilling,
  usageChargeOf,
} from '../domain';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { PeriodUsage, periodInstants } from '../usage/period-rating';
import { UsageStore } from '../usage/usage-store';

/** The catalog's pricing maths, for composeInvoice. */
export const CATALOG_PRICING: CatalogPricing<PriceComponent> = { chargeLines, componentLabel };

/**
 * What composing a subscription's invoice reads: from the database for the
 * billing engine and the upcoming invoice (BillingInputs), from plain data in
 * the property tests.
 */
export interface BillingSources {
  /** The prices among `priceIds` as the catalog knows them now (absent: gone from it). */
  prices(priceIds: readonly string[]): Promise<ReadonlyMap<string, ExistingPrice>>;
  /** The item's usage events of a period (its days in the subscription's time zone), rated at the price versions in force when they happened. */
  usage(item: SubscriptionItem, period: Period): Promise<PeriodUsage>;
  /** The discounts of the customer record the subscription names, in the order applied (none without one). */
  customerDiscounts(): Promise<readonly CustomerDiscountTerms[]>;
}

/** A booked usage period whose late usage could not be rated now: its correction waits for a later billing. */
export interface SkippedCorrection {
  readonly itemId: string;
  readonly period: Period;
  readonly reason: string;
}

/**
 * Everything composeInvoice needs to bill `due`: the charged items' prices,
 * the usage of their event_based periods, the booked usage periods re-rated
 * now (corrections) and the customer record's discounts. One function for the billing engine and the
 * upcoming invoice, so a preview reads exactly what the engine reads at
 * billAt (the same answers when nothing changed in between).
 */
export async function gatherInvoiceInput(
  subscription: Subscription,
  due: Pick<DueBilling, 'billAt' | 'charges' | 'prorations'>,
  sources: BillingSources,
  skipped: (correction: SkippedCorrection) => void,
): Promise<InvoiceCompositionInput<PriceComponent>> {
  const items = new Map(subscription.items.map((item) => [item.id, item]));
  const prices = await chargedPrices(subscription, [...new Set(due.charges.map((charge) => items.get(charge.itemId)!.priceId))], sources);
  const usage = new Map<string, PeriodUsage | DomainError>();
  for (const { itemId, kind, period } of due.charges) {
    if (kind !== 'event_based') continue;
    // Usage of the (possibly shortened) period, rated at the price versions in force when it happened.
    usage.set(itemId, await sources.usage(items.get(itemId)!, period!).catch(domainErrorOnly));
  }
  const rerated: ReratedPeriod[] = [];
  for (const [itemId, records] of Object.entries(subscription.usageBilled ?? {})) {
    const item = items.get(itemId);
    if (!item) continue;
    for (const record of records) {
      try {
        const rated = await sources.usage(item, record.period);
        rerated.push({ item, metricName: rated.metric.name, record, now: usageChargeOf(itemId, record.period, rated) });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        // A booked period that cannot be re-rated (late usage beyond the largest amount, its metric or pricing gone) never stops
        // this billing: its correction waits, re-tried with every billing while the period can still receive events.
        skipped({ itemId, period: record.period, reason: error.message });
      }
    }
  }
  return { subscription, due, prices, usage, rerated, customerDiscounts: await sources.customerDiscounts() };
}

/** The prices among `priceIds` in the subscription's currency, as composition (and a change's proration) prices them. */
export async function chargedPrices(
  subscription: Subscription,
  priceIds: readonly string[],
  sources: BillingSources,
): Promise<Map<string, ChargedPrice<PriceComponent>>> {
  const found = await sources.prices(priceIds);
  return new Map(
    [...found].map(([id, price]) => {
      const entry = price.pricing[subscription.currency];
      return [id, { name: price.name, componentsAt: entry ? (quantity: bigint) => priceComponents(price.priceModel, entry, quantity) : null }];
    }),
  );
}

/** The invoice of the charges due: gatherInvoiceInput, then composeInvoice with the catalog's pricing maths. */
export async function composeDue(
  subscription: Subscription,
  due: Pick<DueBilling, 'billAt' | 'charges' | 'prorations'>,
  sources: BillingSources,
  skipped: (correction: SkippedCorrection) => void,
): Promise<InvoiceComposition> {
  return composeInvoice(await gatherInvoiceInput(subscription, due, sources, skipped), CATALOG_PRICING);
}

/** The next invoice the engine books for a subscription: its billing (billAt, charges) and its composition. */
export interface UpcomingComposition {
  readonly subscription: Subscription;
  readonly due: DueBilling;
  readonly composed: Extract<InvoiceComposition, { kind: 'composed' }>;
}

/**
 * What the engine will book at the subscription's next billing with charges,
 * composed from what the sources hold now: upcomingBilling (the renewals and
 * the end before it applied as the engine applies them), then composeDue.
 * An item whose charge cannot be priced or rated is held, as the engine
 * records its failure (decideRecordBillingFailure at billAt) and bills the
 * other items at the same billAt; null when nothing is left to bill.
 */
export async function composeUpcoming(
  state: SubscriptionState,
  sources: BillingSources,
  skipped: (correction: SkippedCorrection) => void,
): Promise<UpcomingComposition | null> {
  for (let current = state; ;) {
    const upcoming = upcomingBilling(current);
    // A scheduled change due by the next billing applies first, as the engine applies it (before the billing at its instant).
    const changeAt = nextChangeAt(current);
    if (changeAt !== null && (upcoming === null || changeAt <= upcoming.due.billAt)) {
      current = await withScheduledChange(upcoming?.subscription ?? (current as Subscription), sources);
      continue;
    }
    if (upcoming === null) return null;
    const { subscription, due } = upcoming;
    const composed = await composeDue(subscription, due, sources, skipped);
    if (composed.kind === 'composed') return { subscription, due, composed };
    const failure = { subscriptionId: subscription.id, billAt: due.billAt, reason: composed.error.message, itemId: composed.itemId };
    const held = decideRecordBillingFailure(failure, subscription, { now: due.billAt, newId: noIds });
    // Nothing to hold (a renewed term's charge the current term cannot record): the engine cannot bill that instant either.
    if (held.length === 0) return null;
    current = held.reduce(evolveSubscription, subscription as SubscriptionState);
  }
}

/**
 * The subscription after its first scheduled change, as the engine applies it at its instant; with
 * always_invoice its lines billed then on an invoice of their own (so not on the upcoming one).
 */
async function withScheduledChange(subscription: Subscription, sources: BillingSources): Promise<SubscriptionState> {
  const change = subscription.pendingChanges![0];
  const meta = { now: new Date(change.effectiveAt), newId: noIds };
  const prices = await chargedPrices(subscription, priceIdsOfChange(subscription, priceIdsNamedBy(change)), sources);
  let events: SubscriptionEvent[];
  try {
    events = decideApplyScheduledChange({ subscriptionId: subscription.id, changeId: change.id }, subscription, meta, prices);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    // The engine drops a change it cannot price at its instant: so does the preview.
    return decideDropChange({ subscriptionId: subscription.id, changeId: change.id, reason: error.message }, subscription, meta).reduce(
      evolveSubscription,
      subscription as SubscriptionState,
    );
  }
  if (events.length === 0) throw new RangeError(`the scheduled change ${change.id} does not apply at its instant`);
  const changed = events.reduce(evolveSubscription, subscription as SubscriptionState) as Subscription;
  if (change.prorationBehavior !== 'always_invoice') return changed;
  return decideBillProrations({ subscriptionId: subscription.id, invoiceId: `proration-invoice-of-${change.id}` }, changed, meta).reduce(
    evolveSubscription,
    changed as SubscriptionState,
  );
}

function noIds(): string {
  throw new RangeError('recording a billing failure or applying a scheduled change takes no new id');
}

/**
 * The composed invoice as the invoicing context's create command takes it,
 * due after the environment's payment terms: made out to the customer record
 * when the subscription names one (`customerId`), else to its inline customer.
 */
export function invoiceInputOf(invoice: ComposedInvoice, paymentTermsDays: number, customerId?: string | null): CreateInvoiceInput {
  return {
    ...(customerId ? { customerId } : { customer: invoice.customer as never }),
    currency: invoice.currency,
    date: invoice.date,
    dueDate: addDays(invoice.date, paymentTermsDays),
    memo: invoice.memo,
    items: invoice.lines,
  };
}

/**
 * The customer's once discounts a subscription invoice used, used up in the
 * command's transaction with the invoice (the engine's step, a cancel-now):
 * one that another invoice used meanwhile is a 409 customer-discount-ended,
 * on which the engine composes the invoice again (isRecomposeConflict).
 */
export async function useCustomerDiscounts(
  bus: CommandBus,
  environmentId: string,
  subscription: Subscription,
  composed: Extract<InvoiceComposition, { kind: 'composed' }>,
  invoiceId: string,
  context: CommandContext,
): Promise<void> {
  if (composed.customerDiscountsUsed.length === 0 || !subscription.customerId) return;
  await bus.execute(
    new UseCustomerDiscountsCommand(environmentId, subscription.customerId, invoiceId, composed.invoice.date, composed.customerDiscountsUsed, context),
  );
}

/** A domain error is the item's failure (composeInvoice reports it); anything else fails the whole step. */
function domainErrorOnly(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  throw error;
}

/** The database's BillingSources: the context's own tables (catalog prices, price versions, usage events) and invoicing's customer discounts. */
@Injectable()
export class BillingInputs {
  constructor(
    private readonly readModel: SubscriptionsReadModel,
    private readonly store: UsageStore,
    private readonly queries: QueryBus,
  ) {}

  /** Usage and the customer's discounts are read on `manager` when given (the engine's unit of work), so a billing step sees what its transaction sees. */
  sources(environmentId: string, subscription: Subscription, manager?: EntityManager): BillingSources {
    return {
      prices: async (priceIds) => new Map([...(await this.readModel.prices(environmentId, priceIds))].map(([id, { price }]) => [id, price])),
      usage: (item, period) => {
        const { from, to } = periodInstants(subscription, period);
        return this.store.rate(environmentId, subscription, item, from, to, manager);
      },
      customerDiscounts: async () =>
        subscription.customerId ? this.queries.execute(new CustomerDiscountsQuery(environmentId, subscription.customerId, manager)) : [],
    };
  }
}
