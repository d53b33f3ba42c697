import { randomUUID } from 'node:crypto';
import { foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import {
  collectionEvolver,
  decideCreatePayment,
  decideEnableProvider,
  decideOpenInvoicePayment,
  decideRecordAttempt,
  decideRecordOutcome,
  decideRefund,
  decideStartAttempt,
  decideStartCollection,
  invoicePaymentsEvolver,
  Payment,
  PaymentEvent,
  paymentEvolver,
  paymentProviderEvolver,
} from '../domain';
import { collectionStream, invoicePaymentsStream, paymentStream, providerStream } from '../streams';
import { paymentsProjection } from './payments.projection';

/** The `payments.read-model` projection on real Postgres: payments, providers and collections made by the real deciders, then rows. */
const spec = projectionSpec(paymentsProjection);
const CREATED = '2026-01-15T10:00:00.000Z';
const LATER = '2026-01-15T10:05:00.000Z';
const payments = `select invoice_id, customer_id, provider, currency, amount::int, status, created_at, version, state, refund_pending_since, recorded_at
                    from payments where environment_id = $1 and id = $2`;
const invoiceId = randomUUID();
const invoice = { invoiceId, status: 'booked', type: 'invoice', currency: 'EUR', customerId: 'cus-1', totalDue: 12_500 } as const;

const create = (paymentId: string) =>
  decideCreatePayment(
    { paymentId, invoiceId, invoice, provider: 'sandbox', providerEnabled: true, pendingPaymentId: null },
    paymentEvolver.initialState(),
    metadataAt(CREATED),
  );
const payment = (events: readonly PaymentEvent[]) => foldEvents(paymentEvolver, events) as Payment;

describe('payments.read-model projection (Postgres)', () => {
  it('given a payment created, then a pending row with the columns GET /payments filters on, the fold, and the real time it was recorded', async () => {
    const env = randomUUID();
    const id = randomUUID();
    await spec.given(append(paymentStream(env, id), create(id), CREATED)).then(async (query, { given }) => {
      expect(await query(payments, [env, id])).toEqual([
        {
          invoice_id: invoiceId,
          customer_id: 'cus-1',
          provider: 'sandbox',
          currency: 'EUR',
          amount: 12_500,
          status: 'pending',
          created_at: new Date(CREATED),
          version: 1,
          state: payment(create(id)),
          refund_pending_since: null,
          recorded_at: given[0].recordedAt,
        },
      ]);
    });
  });

  it('given a payment, when it succeeds and a refund is asked in a later batch, then the row is succeeded with the refund pending since its request', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const succeeded = decideRecordOutcome({ kind: 'succeeded', providerReference: 'ch_1' }, payment(create(id)), metadataAt(LATER));
    const refund = decideRefund({ refundId: randomUUID(), amount: 2_500 }, payment([...create(id), ...succeeded]), metadataAt(LATER));
    const history = [...create(id), ...succeeded, ...refund];
    await spec
      .given(append(paymentStream(env, id), create(id), CREATED))
      .when(append(paymentStream(env, id), succeeded, LATER), append(paymentStream(env, id), refund, LATER))
      .then(async (query, { when }) => {
        const [row] = await query(payments, [env, id]);
        expect(row).toEqual({
          invoice_id: invoiceId,
          customer_id: 'cus-1',
          provider: 'sandbox',
          currency: 'EUR',
          amount: 12_500,
          status: 'succeeded',
          created_at: new Date(CREATED),
          version: 3,
          state: payment(history),
          refund_pending_since: new Date(LATER),
          recorded_at: when[1].recordedAt,
        });
      });
  });
});

describe('payments.read-model projection (Postgres): providers, collections, other streams', () => {
  it('given a provider enabled with credentials, then its row keeps the hint and never the (encrypted) credentials', async () => {
    const env = randomUUID();
    const stream = providerStream(env, 'stripe');
    const enabled = decideEnableProvider(
      { name: 'stripe', credentialsHint: 'sk_live_…4242', credentials: { keyId: 'k1', ciphertext: 'secret' } },
      paymentProviderEvolver.initialState(),
      metadataAt(CREATED, 'provider'),
    );
    const state = { ...foldEvents(paymentProviderEvolver, enabled), credentials: null };
    await spec
      .given(append(stream, enabled))
      .thenRows(
        `select id, name, version, state from payment_providers where environment_id = $1`,
        [env],
        [{ id: stream.streamId, name: 'stripe', version: 1, state }],
      );
    expect(state).toMatchObject({ status: 'enabled', id: 'provider-1', credentialsHint: 'sk_live_…4242', credentials: null });
  });

  it('given a collection whose first try failed softly, then its row is due again at the retry the schedule gives; while attempting, at once', async () => {
    const env = randomUUID();
    const [failing, attempting] = [randomUUID(), randomUUID()];
    const started = (invoice: string) =>
      decideStartCollection(
        { invoiceId: invoice, subscriptionId: randomUUID(), provider: 'sandbox', token: 'tok', retryDays: [3, 5] },
        collectionEvolver.initialState(),
        metadataAt(CREATED),
      );
    const attempt = (invoice: string, paymentId: string) =>
      decideStartAttempt({ paymentId }, foldEvents(collectionEvolver, started(invoice)), metadataAt(LATER));
    const tried = attempt(failing, 'p-1');
    const failed = decideRecordAttempt(
      { status: 'failed', paymentId: 'p-1', failureCode: 'card_declined', retryable: true },
      foldEvents(collectionEvolver, [...started(failing), ...tried]),
      metadataAt(LATER),
      null, // the invoice as the collection sees it: none to stop for
    );
    await spec
      .given(
        append(collectionStream(env, failing), [...started(failing), ...tried, ...failed]),
        append(collectionStream(env, attempting), [...started(attempting), ...attempt(attempting, 'p-2')]),
      )
      .then(async (query) => {
        const rows = await query(`select invoice_id, status, next_attempt_at from payment_collections where environment_id = $1 order by next_attempt_at`, [
          env,
        ]);
        expect(rows).toEqual([
          { invoice_id: attempting, status: 'attempting', next_attempt_at: new Date(LATER) },
          { invoice_id: failing, status: 'due', next_attempt_at: new Date('2026-01-18T10:05:00.000Z') },
        ]);
      });
  });

  it('ignores the invoice’s payment lock stream (invoice-payments): no row in any of its tables', async () => {
    const env = randomUUID();
    const opened = decideOpenInvoicePayment({ invoiceId, paymentId: randomUUID() }, invoicePaymentsEvolver.initialState(), metadataAt(CREATED));
    await spec.given(append(invoicePaymentsStream(env, invoiceId), opened)).then(async (query) => {
      const counts = `select (select count(*) from payments where environment_id = $1)::int as payments,
                             (select count(*) from payment_collections where environment_id = $1)::int as collections`;
      expect(await query(counts, [env])).toEqual([{ payments: 0, collections: 0 }]);
    });
  });
});
