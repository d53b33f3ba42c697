import { randomUUID } from 'node:crypto';
import { PRICE_STREAM_TYPE } from '@billing/catalog';
import { decideBookInvoice, decideCreateInvoice, decideCreateTaxCode, invoiceEvolver, invoiceStream, taxCodeEvolver, taxCodeStream } from '@billing/invoicing';
import { decideCreatePayment, decideRecordOutcome, paymentEvolver, paymentStream } from '@billing/payments';
import { foldEvents } from '@billing/shared-kernel';
import { decideCreateSubscription, subscriptionEvolver, subscriptionStream } from '@billing/subscriptions';
import { metadataAt } from '@billing/testing';
import { priceCreated } from '@billing/testing/price-events';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import { analyticsProjection } from './analytics.projection';

/**
 * The `analytics.read-model` projection on real Postgres: invoices, payments and subscriptions made by their own
 * contexts' deciders, prices as the catalog records them; then the ledger, MRR changes and tracked states.
 */
const spec = projectionSpec(analyticsProjection);
const CREATED = '2026-01-15T10:00:00.000Z';
const PAID = '2026-01-20T08:00:00.000Z';
const ledger = `select invoice_id, currency, day::text, known_at, invoiced::int, tax::int, discounts::int, credit_notes::int, collected::int, receivable::int, usage::int
                  from analytics_ledger where environment_id = $1 order by known_at, invoiced desc`;
const zero = { invoiced: 0, tax: 0, discounts: 0, credit_notes: 0, collected: 0, receivable: 0, usage: 0 };
const customer = { id: randomUUID(), handle: 'c-1', name: 'Acme' };

/** An invoice of 2 × 50.00 EUR without tax, created then booked as INV-1: its two events. */
const invoice = (invoiceId: string) => {
  const created = decideCreateInvoice(
    { invoiceId, customer, currency: 'EUR', date: '2026-01-15', items: [{ quantity: 2, unitAmount: 5000 }], taxes: new Map() },
    invoiceEvolver.initialState(),
    metadataAt(CREATED),
  );
  const booked = decideBookInvoice({ invoiceId, handle: 'INV-1', taxes: new Map() }, foldEvents(invoiceEvolver, created), metadataAt(CREATED));
  return { created, booked };
};
const paid = (invoiceId: string, paymentId: string) => {
  const facts = { invoiceId, status: 'booked', type: 'invoice', currency: 'EUR', customerId: customer.id, totalDue: 10_000 } as const;
  const created = decideCreatePayment(
    { paymentId, invoiceId, invoice: facts, provider: 'sandbox', providerEnabled: true, pendingPaymentId: null },
    paymentEvolver.initialState(),
    metadataAt(PAID),
  );
  return [...created, ...decideRecordOutcome({ kind: 'succeeded', providerReference: 'ch_1' }, foldEvents(paymentEvolver, created), metadataAt(PAID))];
};

const MRR_CHANGES = `select event_id, position::text, subscription_id, customer_key, currency, at, known_at, mrr::int from analytics_mrr_changes where environment_id = $1`;

/** A catalog price of 15.00 EUR a month (its event), and the facts a subscription is decided with. */
function priceOf(priceId: string) {
  const price = priceCreated(priceId, CREATED, { name: 'Pro' });
  const facts = {
    id: priceId,
    name: 'Pro',
    archived: false,
    currencies: ['eur'],
    purchase: 'recurring',
    termCount: 1,
    termUnit: 'month',
    billingTiming: 'advance',
    product: { id: randomUUID(), name: 'Pro' },
  } as const;
  return { price, facts };
}

describe('analytics.read-model projection (Postgres)', () => {
  it('given an invoice created then booked, then its tracked state and one ledger entry on its date: invoiced and receivable (the draft moves nothing)', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const { created, booked } = invoice(id);
    await spec.given(append(invoiceStream(env, id), created, CREATED), append(invoiceStream(env, id), booked, CREATED)).then(async (query) => {
      expect(await query(ledger, [env])).toEqual([
        { ...zero, invoice_id: id, currency: 'EUR', day: '2026-01-15', known_at: new Date(CREATED), invoiced: 10_000, receivable: 10_000 },
      ]);
      expect(await query(`select id, state from analytics_invoices where environment_id = $1`, [env])).toEqual([
        {
          id,
          state: {
            status: 'booked',
            id,
            type: 'invoice',
            handle: 'INV-1',
            date: '2026-01-15',
            dueDate: (foldEvents(invoiceEvolver, [...created, ...booked]) as { dueDate: string | null }).dueDate,
            currency: 'EUR',
            customerId: null,
            customer: { name: 'Acme' },
            totalInclVat: 10_000,
            totalVat: 0,
            lineDiscounts: 0,
            settledAmount: 0,
          },
        },
      ]);
    });
  });

  it('given a booked invoice, when its payment succeeds in a later batch, then a collected entry on the day it succeeded', async () => {
    const env = randomUUID();
    const [invoiceId, paymentId] = [randomUUID(), randomUUID()];
    const { created, booked } = invoice(invoiceId);
    await spec
      .given(append(invoiceStream(env, invoiceId), [...created, ...booked], CREATED))
      .when(append(paymentStream(env, paymentId), paid(invoiceId, paymentId), PAID))
      .then(async (query) => {
        const rows = await query(ledger, [env]);
        expect(rows[1]).toEqual({ ...zero, invoice_id: null, currency: 'EUR', day: '2026-01-20', known_at: new Date(PAID), collected: 10_000 });
        expect(rows).toHaveLength(2);
      });
  });
});

describe('analytics.read-model projection (Postgres): MRR, other streams, replays', () => {
  it('given a price and a subscription to it starting that day, then its MRR change: the monthly amount of its quantity, owned by its customer', async () => {
    const env = randomUUID();
    const [priceId, subscriptionId] = [randomUUID(), randomUUID()];
    const { price, facts } = priceOf(priceId);
    const subscribed = decideCreateSubscription(
      {
        subscriptionId,
        handle: 'sub-1',
        customer: { id: 'cust-9' },
        currency: 'EUR',
        term: { start: '2026-01-15' },
        items: [{ priceId, price: facts, quantity: 2 }],
      },
      subscriptionEvolver.initialState(),
      metadataAt(CREATED),
    );
    await spec
      .given(
        append({ environmentId: env, streamType: PRICE_STREAM_TYPE, streamId: priceId }, [price], CREATED),
        append(subscriptionStream(env, subscriptionId), subscribed, CREATED),
      )
      .then(async (query, { given }) => {
        expect(await query(MRR_CHANGES, [env])).toEqual([
          {
            event_id: given[1].eventId,
            position: given[1].globalPosition,
            subscription_id: subscriptionId,
            customer_key: 'inline:cust-9',
            currency: 'EUR',
            at: new Date(CREATED),
            known_at: new Date(CREATED),
            mrr: 3000,
          },
        ]);
      });
  });

  it('ignores a tax code’s stream (not one it follows): no row in any of its tables', async () => {
    const env = randomUUID();
    const created = decideCreateTaxCode({ code: 'VAT', rate: 0.24, taxable: true }, taxCodeEvolver.initialState(), metadataAt(CREATED));
    await spec.given(append(taxCodeStream(env, 'VAT'), created)).then(async (query) => {
      const tables = [
        'analytics_ledger',
        'analytics_mrr_changes',
        'analytics_invoices',
        'analytics_payments',
        'analytics_subscriptions',
        'analytics_prices',
        'analytics_customers',
      ];
      const counts = await Promise.all(
        tables.map(async (table) => (await query<{ n: number }>(`select count(*)::int as n from ${table} where environment_id = $1`, [env]))[0].n),
      );
      expect(counts).toEqual(tables.map(() => 0));
    });
  });

  it('given the same batch applied twice (its rows never depend on where batches begin), then each ledger entry once and the same tracked invoice', async () => {
    const env = randomUUID();
    const [invoiceId, paymentId] = [randomUUID(), randomUUID()];
    const { created, booked } = invoice(invoiceId);
    await spec
      .given(append(invoiceStream(env, invoiceId), [...created, ...booked], CREATED), append(paymentStream(env, paymentId), paid(invoiceId, paymentId), PAID))
      .twice()
      .then(async (query) => {
        expect((await query(ledger, [env])).map((row) => [row.invoiced, row.receivable, row.collected])).toEqual([
          [10_000, 10_000, 0],
          [0, 0, 10_000],
        ]);
        expect(
          await query(`select state->>'status' as status, (state->>'settledAmount')::int as settled from analytics_invoices where environment_id = $1`, [env]),
        ).toEqual([{ status: 'booked', settled: 0 }]);
      });
  });
});
