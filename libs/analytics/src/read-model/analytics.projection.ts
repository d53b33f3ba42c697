import { EntityManager } from 'typeorm';
import { readModelPaymentMethod } from '@billing/shared-kernel';
import { PRICE_STREAM_TYPE, PriceEvent, priceEvolver, PriceState } from '@billing/catalog';
import { jsonRows, jsonRowsFrom, Projection, queryRows, RecordedEvent, streamBatches } from '@billing/event-store';
import { CUSTOMER_STREAM, CustomerEvent, INVOICE_STREAM, InvoiceEvent } from '@billing/invoicing';
import { PAYMENT_STREAM_TYPE, PaymentEvent, paymentEvolver, PaymentState } from '@billing/payments';
import { localDateOf, Subscription, SUBSCRIPTION_STREAM, SubscriptionEvent, subscriptionEvolver, SubscriptionState } from '@billing/subscriptions';
import { invoiceEntry, LedgerEntry, paymentEntry, usageEntry } from './ledger-entries';
import { subscriptionMrr } from './subscription-mrr';
import { evolveTrackedCustomer, NO_CUSTOMER, TrackedCustomer } from './tracked-customer';
import { evolveTrackedInvoice, NO_INVOICE, TrackedInvoiceState } from './tracked-invoice';

export const ANALYTICS_PROJECTION = 'analytics.read-model';

/** A subscription as analytics keeps it: its folded state, the MRR last recorded for it and the instant that took effect. */
interface TrackedSubscription {
  readonly subscription: SubscriptionState;
  readonly mrr: number;
  readonly at?: string;
}

type FoldedTable = 'analytics_invoices' | 'analytics_payments' | 'analytics_subscriptions' | 'analytics_prices' | 'analytics_customers';
const FOLDED: readonly { readonly table: FoldedTable; readonly streamType: string }[] = [
  { table: 'analytics_invoices', streamType: INVOICE_STREAM },
  { table: 'analytics_payments', streamType: PAYMENT_STREAM_TYPE },
  { table: 'analytics_subscriptions', streamType: SUBSCRIPTION_STREAM },
  { table: 'analytics_prices', streamType: PRICE_STREAM_TYPE },
  { table: 'analytics_customers', streamType: CUSTOMER_STREAM },
];

interface MrrChange {
  readonly event: RecordedEvent;
  readonly subscriptionId: string;
  readonly customerKey: string;
  readonly currency: string;
  readonly at: string;
  readonly mrr: number;
}

/**
 * The analytics read models from invoicing's (invoices, customers' discounts), payments', subscriptions' and the
 * catalog's published events. Every event is applied in log order (a subscription's MRR is worked out with the
 * prices and its customer's discounts as they were at the event), so the rows never depend on where batches begin:
 * a rebuild makes exactly the same rows (`npm run replay`). A subscription's MRR is worked out again at each of its
 * own events and at each event of its customer record (a discount applied or ended changes it without any event of
 * the subscription's).
 */
const TABLES = ['analytics_ledger', 'analytics_mrr_changes', ...FOLDED.map(({ table }) => table)];

export const analyticsProjection: Projection = {
  name: ANALYTICS_PROJECTION,
  tables: TABLES,
  streamTypes: FOLDED.map(({ streamType }) => streamType),
  // Invoices, payments and subscriptions are the hottest writes and few requests read analytics: no write waits for
  // this projection; the analytics endpoints catch it up to the head of the log before they read.
  caughtUpOnRead: true,
  async applyBatch(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const states = await storedStates(events, tx);
    const touched = new Map<FoldedTable, Set<string>>(FOLDED.map(({ table }) => [table, new Set<string>()]));
    const subscriptionsOf = customersSubscriptions(states);
    const ledger: { event: RecordedEvent; entry: LedgerEntry }[] = [];
    const mrrChanges: MrrChange[] = [];
    const state = <S>(table: FoldedTable, environmentId: string, id: string, initial: () => S): S =>
      (states.get(keyOf(table, environmentId, id)) as S | undefined) ?? initial();
    const keep = (table: FoldedTable, environmentId: string, id: string, value: unknown) => {
      states.set(keyOf(table, environmentId, id), value);
      touched.get(table)!.add(keyOf(table, environmentId, id));
    };
    /** Keeps the subscription's state after `event` and records its MRR when that changed. */
    const track = (event: RecordedEvent, subscriptionId: string, tracked: TrackedSubscription, folded: SubscriptionState) => {
      const { environmentId } = event;
      // No clear payment token in a read model: one folded from an event from before tokens were sealed is redacted.
      const subscription: SubscriptionState =
        folded.status === 'none' ? folded : { ...folded, paymentMethod: readModelPaymentMethod(folded.paymentMethod) ?? null };
      const mrr = mrrOf(subscription, environmentId, states, event.occurredAt);
      if (mrr === tracked.mrr || subscription.status === 'none') {
        keep('analytics_subscriptions', environmentId, subscriptionId, { ...tracked, subscription });
        return;
      }
      const at = effectiveAt(event, tracked.at);
      keep('analytics_subscriptions', environmentId, subscriptionId, { subscription, mrr, at });
      mrrChanges.push({ event, subscriptionId, customerKey: customerKeyOf(subscription), currency: subscription.currency.toUpperCase(), at, mrr });
    };
    for (const event of events) {
      const { environmentId, streamId } = event;
      if (event.streamType === INVOICE_STREAM) {
        const before = state<TrackedInvoiceState>('analytics_invoices', environmentId, streamId, () => NO_INVOICE);
        const after = evolveTrackedInvoice(before, event as unknown as InvoiceEvent);
        if (after === before) continue;
        keep('analytics_invoices', environmentId, streamId, after);
        const entry = invoiceEntry(event as unknown as InvoiceEvent, before, after);
        if (entry) ledger.push({ event, entry });
      } else if (event.streamType === PAYMENT_STREAM_TYPE) {
        const after = paymentEvolver.evolve(
          state<PaymentState>('analytics_payments', environmentId, streamId, paymentEvolver.initialState),
          event as unknown as PaymentEvent,
        );
        keep('analytics_payments', environmentId, streamId, after);
        const entry = paymentEntry(event as unknown as PaymentEvent, after);
        if (entry) ledger.push({ event, entry });
      } else if (event.streamType === PRICE_STREAM_TYPE) {
        const after = priceEvolver.evolve(
          state<PriceState>('analytics_prices', environmentId, streamId, priceEvolver.initialState),
          event as unknown as PriceEvent,
        );
        keep('analytics_prices', environmentId, streamId, after);
      } else if (event.streamType === CUSTOMER_STREAM) {
        const before = state<TrackedCustomer>('analytics_customers', environmentId, streamId, () => NO_CUSTOMER);
        const after = evolveTrackedCustomer(before, event as unknown as CustomerEvent);
        if (after === before) continue;
        keep('analytics_customers', environmentId, streamId, after);
        for (const subscriptionId of subscriptionsOf.get(`${environmentId}/${streamId}`) ?? []) {
          const tracked = state<TrackedSubscription>('analytics_subscriptions', environmentId, subscriptionId, untracked);
          track(event, subscriptionId, tracked, tracked.subscription);
        }
      } else if (event.streamType === SUBSCRIPTION_STREAM) {
        const tracked = state<TrackedSubscription>('analytics_subscriptions', environmentId, streamId, untracked);
        const subscription = subscriptionEvolver.evolve(tracked.subscription, event as unknown as SubscriptionEvent);
        const usage = usageEntry(event as unknown as SubscriptionEvent, subscription);
        if (usage) ledger.push({ event, entry: usage });
        if (subscription.status !== 'none' && subscription.customerId) indexSubscription(subscriptionsOf, environmentId, subscription.customerId, streamId);
        track(event, streamId, tracked, subscription);
      }
    }
    for (const { table } of FOLDED)
      await upsert(
        table,
        [...touched.get(table)!].map((key) => [key, states.get(key)]),
        tx,
      );
    await insertLedger(ledger, tx);
    await insertMrrChanges(mrrChanges, tx);
  },
  async reset(tx: EntityManager): Promise<void> {
    await tx.query(`truncate ${TABLES.join(', ')}`);
  },
};

/** The stored states of the streams the batch's events touch, the subscriptions of their customers and what those subscriptions use. */
async function storedStates(events: readonly RecordedEvent[], tx: EntityManager): Promise<Map<string, unknown>> {
  const states = new Map<string, unknown>();
  for (const { table, streamType } of FOLDED) {
    for (const stream of await streamBatches<unknown>(events, streamType, table, tx)) {
      if (stream.stored !== null) states.set(keyOf(table, stream.environmentId, stream.id), stream.stored);
    }
  }
  await loadSubscriptionsOfCustomers(states, events, tx);
  await loadWhatSubscriptionsUse(states, events, tx);
  return states;
}

function untracked(): TrackedSubscription {
  return { subscription: subscriptionEvolver.initialState(), mrr: 0 };
}

function keyOf(table: FoldedTable, environmentId: string, id: string): string {
  return `${table}/${environmentId}/${id}`;
}

/**
 * When an MRR change took effect: the event's time, but for an end of service or of a trial the instant it says
 * (a test clock's catch-up records them later than they happened), never before the subscription's previous change.
 */
function effectiveAt(event: RecordedEvent, previous: string | undefined): string {
  const occurred = event.occurredAt.toISOString();
  const said = event.type === 'SubscriptionEnded' || event.type === 'SubscriptionTrialEnded' ? (event.data as { endedAt: string }).endedAt : occurred;
  const at = new Date(Math.min(Date.parse(said), Date.parse(occurred))).toISOString();
  return previous !== undefined && previous > at ? previous : at;
}

/** The subscription's MRR at `at`, with the prices and its customer record's discounts known then. */
function mrrOf(subscription: SubscriptionState, environmentId: string, states: ReadonlyMap<string, unknown>, at: Date): number {
  if (subscription.status === 'none') return 0;
  const prices = new Map<string, PriceState>();
  for (const item of subscription.items) {
    const price = states.get(keyOf('analytics_prices', environmentId, item.priceId)) as PriceState | undefined;
    if (price) prices.set(item.priceId, price);
  }
  const customer = subscription.customerId
    ? (states.get(keyOf('analytics_customers', environmentId, subscription.customerId)) as TrackedCustomer | undefined)
    : undefined;
  const discounts = customer === undefined ? null : { discounts: customer.discounts, day: localDateOf(at, customer.timeZone) };
  return Number(subscriptionMrr(subscription, prices, localDateOf(at, subscription.timeZone), discounts));
}

/** Who the MRR belongs to: the customer record, else the inline customer's id, else the subscription itself. */
function customerKeyOf(subscription: Subscription): string {
  if (subscription.customerId) return subscription.customerId;
  const inline = subscription.customer.id;
  return typeof inline === 'string' && inline !== '' ? `inline:${inline}` : `subscription:${subscription.id}`;
}

/** Per customer record (`environmentId/customerId`), the subscriptions of it among the states loaded. */
function customersSubscriptions(states: ReadonlyMap<string, unknown>): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  for (const [key, value] of states) {
    const [table, environmentId, id] = key.split('/');
    if (table !== 'analytics_subscriptions') continue;
    const { subscription } = value as TrackedSubscription;
    if (subscription.status !== 'none' && subscription.customerId) indexSubscription(index, environmentId, subscription.customerId, id);
  }
  return index;
}

function indexSubscription(index: Map<string, Set<string>>, environmentId: string, customerId: string, subscriptionId: string): void {
  const key = `${environmentId}/${customerId}`;
  index.set(key, (index.get(key) ?? new Set<string>()).add(subscriptionId));
}

/** The stored subscriptions of the customer records the batch has events of (their MRR follows the customer's discounts). */
async function loadSubscriptionsOfCustomers(states: Map<string, unknown>, events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
  const customers = new Map<string, { environmentId: string; id: string }>();
  for (const event of events) {
    if (event.streamType === CUSTOMER_STREAM)
      customers.set(`${event.environmentId}/${event.streamId}`, { environmentId: event.environmentId, id: event.streamId });
  }
  if (customers.size === 0) return;
  const keys = [...customers.values()];
  const rows = await queryRows<{ environment_id: string; id: string; state: TrackedSubscription }>(
    tx,
    `select s.environment_id, s.id, s.state from analytics_subscriptions s
       join unnest($1::uuid[], $2::text[]) as k(environment_id, customer_id)
         on s.environment_id = k.environment_id and s.state #>> '{subscription,customerId}' = k.customer_id`,
    [keys.map((k) => k.environmentId), keys.map((k) => k.id)],
  );
  for (const row of rows) {
    const key = keyOf('analytics_subscriptions', row.environment_id, row.id);
    if (!states.has(key)) states.set(key, row.state);
  }
}

/**
 * The stored prices and customer records the batch's subscriptions use at any of their events (each subscription
 * folded through its events here, so an item a change adds is priced too) that the batch does not begin.
 */
async function loadWhatSubscriptionsUse(states: Map<string, unknown>, events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
  const wanted: Record<'analytics_prices' | 'analytics_customers', Map<string, { environmentId: string; id: string }>> = {
    analytics_prices: new Map(),
    analytics_customers: new Map(),
  };
  const uses = (environmentId: string, subscription: SubscriptionState) => {
    if (subscription.status === 'none') return;
    const add = (table: keyof typeof wanted, id: string) => {
      const key = keyOf(table, environmentId, id);
      if (!states.has(key)) wanted[table].set(key, { environmentId, id });
    };
    for (const item of subscription.items) add('analytics_prices', item.priceId);
    if (subscription.customerId) add('analytics_customers', subscription.customerId);
  };
  for (const [key, value] of states) if (key.startsWith('analytics_subscriptions/')) uses(key.split('/')[1], (value as TrackedSubscription).subscription);
  const folded = new Map<string, SubscriptionState>();
  for (const event of events) {
    if (event.streamType !== SUBSCRIPTION_STREAM) continue;
    const key = keyOf('analytics_subscriptions', event.environmentId, event.streamId);
    const before = folded.get(key) ?? (states.get(key) as TrackedSubscription | undefined)?.subscription ?? subscriptionEvolver.initialState();
    const after = subscriptionEvolver.evolve(before, event as unknown as SubscriptionEvent);
    folded.set(key, after);
    uses(event.environmentId, after);
  }
  for (const table of ['analytics_prices', 'analytics_customers'] as const) {
    const keys = [...wanted[table].values()];
    if (keys.length === 0) continue;
    const rows = await queryRows<{ environment_id: string; id: string; state: unknown }>(
      tx,
      `select t.environment_id, t.id, t.state from ${table} t
         join unnest($1::uuid[], $2::uuid[]) as k(environment_id, id) on t.environment_id = k.environment_id and t.id = k.id`,
      [keys.map((k) => k.environmentId), keys.map((k) => k.id)],
    );
    for (const row of rows) states.set(keyOf(table, row.environment_id, row.id), row.state);
  }
}

async function upsert(table: FoldedTable, rows: [string, unknown][], tx: EntityManager): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into ${table} (environment_id, id, state) select * from ${jsonRowsFrom(1, 'environment_id uuid, id uuid, state jsonb')}
     on conflict (environment_id, id) do update set state = excluded.state`,
    [
      jsonRows(
        rows.map(([key, state]) => {
          const [, environmentId, id] = key.split('/');
          return { environment_id: environmentId, id, state };
        }),
      ),
    ],
  );
}

async function insertLedger(rows: readonly { event: RecordedEvent; entry: LedgerEntry }[], tx: EntityManager): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into analytics_ledger (environment_id, event_id, invoice_id, currency, day, known_at, invoiced, tax, discounts, credit_notes, collected, receivable, usage)
     select * from ${jsonRowsFrom(
       1,
       `environment_id uuid, event_id uuid, invoice_id uuid, currency text, day date, known_at timestamptz, invoiced bigint, tax bigint, discounts bigint,
        credit_notes bigint, collected bigint, receivable bigint, usage bigint`,
     )}
     on conflict do nothing`,
    [
      jsonRows(
        rows.map(({ event, entry }) => ({
          environment_id: event.environmentId,
          event_id: event.eventId,
          invoice_id: entry.invoiceId,
          currency: entry.currency,
          day: entry.day,
          known_at: event.occurredAt,
          invoiced: entry.invoiced,
          tax: entry.tax,
          discounts: entry.discounts,
          credit_notes: entry.creditNotes,
          collected: entry.collected,
          receivable: entry.receivable,
          usage: entry.usage,
        })),
      ),
    ],
  );
}

async function insertMrrChanges(rows: readonly MrrChange[], tx: EntityManager): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `insert into analytics_mrr_changes (environment_id, event_id, position, subscription_id, customer_key, currency, at, known_at, mrr)
     select * from ${jsonRowsFrom(
       1,
       'environment_id uuid, event_id uuid, position bigint, subscription_id uuid, customer_key text, currency text, at timestamptz, known_at timestamptz, mrr bigint',
     )}
     on conflict do nothing`,
    [
      jsonRows(
        rows.map((r) => ({
          environment_id: r.event.environmentId,
          event_id: r.event.eventId,
          position: r.event.globalPosition,
          subscription_id: r.subscriptionId,
          customer_key: r.customerKey,
          currency: r.currency,
          at: r.at,
          known_at: r.event.occurredAt,
          mrr: r.mrr,
        })),
      ),
    ],
  );
}
