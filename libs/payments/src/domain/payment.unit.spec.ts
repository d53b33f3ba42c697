import fc from 'fast-check';
import { ValidationError, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { CreatePayment, InvoiceFacts } from './payment-commands';
import {
  PaymentActionRequired,
  PaymentCreated,
  PaymentDisputeClosed,
  PaymentDisputed,
  PaymentEvent,
  PaymentProcessing,
  PaymentFailed,
  PaymentRefundFailed,
  PaymentRefundRequested,
  PaymentRefunded,
  PaymentSucceeded,
} from './payment-events';
import { decideCreatePayment, decideDispute, decideRecordOutcome, decideRecordRefundOutcome, decideRefund } from './payment-decisions';
import { pendingRefunds, evolvePayment, paymentEvolver, refundableAmount } from './payment';

const NOW = '2025-03-01T10:00:00.000Z';
const LATER = '2025-03-01T10:00:05.000Z';
const meta = metadataAt(NOW);
const later = metadataAt(LATER);
const spec = deciderSpec(paymentEvolver);
const invalidAt = (pointer: string, code = 'validation-failed') => ({ kind: 'validation', code, errors: [expect.objectContaining({ pointer })] });

const invoice: InvoiceFacts = { invoiceId: 'inv-1', status: 'booked', type: 'invoice', currency: 'EUR', customerId: 'cust-1', totalDue: 12_500 };
const create: CreatePayment = {
  paymentId: 'pay-1',
  invoiceId: 'inv-1',
  invoice,
  provider: 'sandbox',
  providerEnabled: true,
  pendingPaymentId: null,
};

const created: PaymentCreated = {
  type: 'PaymentCreated',
  schemaVersion: 1,
  data: { paymentId: 'pay-1', invoiceId: 'inv-1', customerId: 'cust-1', amount: 12_500, currency: 'EUR', provider: 'sandbox', attempt: 1, createdAt: NOW },
};
const succeeded: PaymentSucceeded = {
  type: 'PaymentSucceeded',
  schemaVersion: 1,
  data: { paymentId: 'pay-1', invoiceId: 'inv-1', amount: 12_500, providerReference: 'ch_1', succeededAt: LATER },
};
const hardDecline: PaymentFailed = {
  type: 'PaymentFailed',
  schemaVersion: 1,
  data: { paymentId: 'pay-1', failureCode: 'card_declined', failureMessage: 'The card was declined.', retryable: false, failedAt: LATER },
};
/** As recorded before refunds went to the gateway: no request before it, no provider reference. */
const refunded = (refundId: string, amount: number, refundedAt = LATER): PaymentRefunded => ({
  type: 'PaymentRefunded',
  schemaVersion: 1,
  data: { paymentId: 'pay-1', invoiceId: 'inv-1', refundId, amount, refundedAt },
});
const requested = (refundId: string, amount: number, requestedAt = LATER): PaymentRefundRequested => ({
  type: 'PaymentRefundRequested',
  schemaVersion: 1,
  data: { paymentId: 'pay-1', invoiceId: 'inv-1', refundId, amount, requestedAt },
});
const refundMade = (refundId: string, amount: number, providerReference = `re_${refundId}`): PaymentRefunded => ({
  type: 'PaymentRefunded',
  schemaVersion: 1,
  data: { paymentId: 'pay-1', invoiceId: 'inv-1', refundId, amount, refundedAt: LATER, providerReference },
});
const refundFailed = (refundId: string, failureCode = 'charge_not_found'): PaymentRefundFailed => ({
  type: 'PaymentRefundFailed',
  schemaVersion: 1,
  data: { paymentId: 'pay-1', refundId, failureCode, failureMessage: 'no', failedAt: LATER },
});

describe('evolvePayment', () => {
  it('a created payment is pending, with nothing refunded', () => {
    expect(foldEvents(paymentEvolver, [created])).toEqual({
      status: 'pending',
      id: 'pay-1',
      invoiceId: 'inv-1',
      customerId: 'cust-1',
      amount: 12_500,
      currency: 'EUR',
      provider: 'sandbox',
      attempt: 1,
      providerReference: null,
      failureCode: null,
      failureMessage: null,
      retryable: null,
      refundedAmount: 0,
      refunds: [],
      createdAt: NOW,
      updatedAt: NOW,
    });
  });

  it('success records the provider reference; refunds recorded before the gateway was asked (no request) add up', () => {
    const state = foldEvents(paymentEvolver, [created, succeeded, refunded('r-1', 500), refunded('r-2', 700, '2025-03-02T00:00:00.000Z')]);
    expect(state).toMatchObject({
      status: 'succeeded',
      providerReference: 'ch_1',
      refundedAmount: 1200,
      refunds: [
        { id: 'r-1', amount: 500, status: 'succeeded', providerReference: null, failureCode: null, failureMessage: null, createdAt: LATER, updatedAt: LATER },
        {
          id: 'r-2',
          amount: 700,
          status: 'succeeded',
          providerReference: null,
          failureCode: null,
          failureMessage: null,
          createdAt: '2025-03-02T00:00:00.000Z',
          updatedAt: '2025-03-02T00:00:00.000Z',
        },
      ],
      updatedAt: '2025-03-02T00:00:00.000Z',
    });
    expect(refundableAmount(state)).toBe(11_300);
  });

  it('a requested refund is pending and reserved; made, it counts as refunded; failed, it is released', () => {
    const pending = foldEvents(paymentEvolver, [created, succeeded, requested('r-1', 500), requested('r-2', 700)]);
    expect(pending).toMatchObject({
      refundedAmount: 0,
      refunds: [
        { id: 'r-1', status: 'pending' },
        { id: 'r-2', status: 'pending' },
      ],
    });
    expect(refundableAmount(pending)).toBe(11_300);
    expect(pendingRefunds(pending).map((refund) => refund.id)).toEqual(['r-1', 'r-2']);
    const decided = foldEvents(paymentEvolver, [created, succeeded, requested('r-1', 500), requested('r-2', 700), refundMade('r-1', 500), refundFailed('r-2')]);
    expect(decided).toMatchObject({
      refundedAmount: 500,
      refunds: [
        { id: 'r-1', status: 'succeeded', providerReference: 're_r-1', failureCode: null },
        { id: 'r-2', status: 'failed', providerReference: null, failureCode: 'charge_not_found', failureMessage: 'no' },
      ],
    });
    expect(refundableAmount(decided)).toBe(12_000);
    expect(pendingRefunds(decided)).toEqual([]);
  });

  it('failure records code, message and whether it may be retried', () => {
    expect(foldEvents(paymentEvolver, [created, hardDecline])).toMatchObject({
      status: 'failed',
      failureCode: 'card_declined',
      failureMessage: 'The card was declined.',
      retryable: false,
      updatedAt: LATER,
    });
  });

  it('ignores events before creation and event types it does not know', () => {
    const none = paymentEvolver.initialState();
    expect(evolvePayment(none, succeeded)).toBe(none);
    const pending = foldEvents(paymentEvolver, [created]);
    expect(evolvePayment(pending, { type: 'PaymentChargedBack', schemaVersion: 1, data: {} } as unknown as PaymentEvent)).toBe(pending);
  });

  it('nothing is refundable unless succeeded', () => {
    expect(refundableAmount(foldEvents(paymentEvolver, [created]))).toBe(0);
    expect(refundableAmount(foldEvents(paymentEvolver, []))).toBe(0);
  });
});

describe('decideCreatePayment', () => {
  it('records a pending payment of the total due by default', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment(create, state, meta))
      .then([created]);
  });

  it('takes a partial amount, the attempt number, and an invoice currency in either case', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, requestedAmount: 1, attempt: 3, invoice: { ...invoice, currency: 'eur' } }, state, meta))
      .then([{ ...created, data: { ...created.data, amount: 1, attempt: 3 } }]);
  });

  it('takes exactly the total due', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, requestedAmount: 12_500 }, state, meta))
      .then([created]);
  });

  it.each<[string, unknown, string]>([
    ['zero', 0, 'must be at least 1'],
    ['negative', -5, 'must be at least 1'],
    ['fractional', 1.5, 'must be an integer number of minor units (1 or more)'],
    ['a string', '100', 'must be an integer number of minor units (1 or more)'],
  ])('refuses a %s amount at /amount', (_, requestedAmount, detail) => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, requestedAmount }, state, meta))
      .thenThrows({ errors: [{ pointer: '/amount', detail }] });
  });

  it('refuses an amount beyond the safe range with its own code', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, requestedAmount: 2 ** 60 }, state, meta))
      .thenThrows(invalidAt('/amount', 'amount-out-of-range'));
  });

  it('refuses more than the total due, naming it', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, requestedAmount: 12_501 }, state, meta))
      .thenThrows({ code: 'amount-exceeds-total-due', errors: [{ pointer: '/amount', detail: "must not exceed the invoice's total due of 12500" }] });
  });

  it('refuses an unknown provider, listing the known ones', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, provider: 'adyen' }, state, meta))
      .thenThrows({
        code: 'unknown-payment-provider',
        errors: [{ pointer: '/paymentMethod/provider', detail: 'must be a known payment provider: sandbox, manual, stripe' }],
      });
  });

  it.each<[string, Partial<CreatePayment>, string, string]>([
    ['a missing invoice', { invoice: null }, '/invoiceId', 'invoice-not-found'],
    ['a draft', { invoice: { ...invoice, status: 'draft' } }, '/invoiceId', 'invoice-not-booked'],
    ['a void invoice', { invoice: { ...invoice, status: 'void', totalDue: 0 } }, '/invoiceId', 'invoice-not-payable'],
    ['a credit note', { invoice: { ...invoice, type: 'credit_note', totalDue: -100 } }, '/invoiceId', 'invoice-not-payable'],
    ['a settled invoice', { invoice: { ...invoice, totalDue: 0 } }, '/invoiceId', 'invoice-not-payable'],
    ['an over-settled invoice', { invoice: { ...invoice, totalDue: -1 } }, '/invoiceId', 'invoice-not-payable'],
    ['a provider not enabled', { providerEnabled: false }, '/paymentMethod/provider', 'payment-provider-not-enabled'],
  ])('refuses %s with a 422', (_, change, pointer, code) => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, ...change }, state, meta))
      .thenThrows(invalidAt(pointer, code));
  });

  it('names the missing invoice', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, invoice: null }, state, meta))
      .thenThrows({ errors: [{ pointer: '/invoiceId', detail: 'there is no invoice inv-1 in this environment' }] });
  });

  it.each(['sandbox', 'stripe'] as const)('lets a customer pay with %s, which takes their money', (provider) => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, provider, byCustomer: true }, state, meta))
      .then([{ ...created, data: { ...created.data, provider } }]);
  });

  it('keeps the sealed token it was asked with on the event and the payment (for a charge made again), never in clear', () => {
    const method = 'sealed-token-as-the-vault-writes-it';
    const events = decideCreatePayment({ ...create, method }, paymentEvolver.initialState(), meta);
    expect(events).toEqual([{ ...created, data: { ...created.data, method } }]);
    expect(foldEvents(paymentEvolver, events)).toMatchObject({ status: 'pending', method });
    expect(foldEvents(paymentEvolver, [created])).not.toHaveProperty('method');
  });

  it('refuses a manual payment asked for by a customer: it would only record money moved elsewhere', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, provider: 'manual', byCustomer: true }, state, meta))
      .thenThrows(invalidAt('/paymentMethod/provider', 'payment-provider-not-for-customers'));
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, provider: 'manual' }, state, meta))
      .then([{ ...created, data: { ...created.data, provider: 'manual' } }]);
  });

  it('conflicts while another payment of the invoice is pending', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, pendingPaymentId: 'pay-0' }, state, meta))
      .thenThrows({ kind: 'conflict', code: 'payment-pending' });
  });

  it('reports a malformed request before a pending payment', () => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, pendingPaymentId: 'pay-0', requestedAmount: 0 }, state, meta))
      .thenThrows(invalidAt('/amount'));
  });

  it('conflicts with an existing payment stream', () => {
    spec
      .given([created])
      .when((state) => decideCreatePayment(create, state, meta))
      .thenThrows({ kind: 'conflict', code: 'payment-exists' });
  });

  it.each([0, 1.5])('refuses attempt %p as a wiring bug', (attempt) => {
    spec
      .given([])
      .when((state) => decideCreatePayment({ ...create, attempt }, state, meta))
      .thenThrows({ name: 'RangeError' });
  });
});

describe('decideRecordOutcome', () => {
  it('records success with the provider reference', () => {
    spec
      .given([created])
      .when((state) => decideRecordOutcome({ kind: 'succeeded', providerReference: 'ch_1' }, state, later))
      .then([succeeded]);
  });

  it('a hard decline is final', () => {
    spec
      .given([created])
      .when((state) => decideRecordOutcome({ kind: 'declined', code: 'card_declined', message: 'The card was declined.', soft: false }, state, later))
      .then([hardDecline]);
  });

  it('a soft decline may be retried', () => {
    spec
      .given([created])
      .when((state) => decideRecordOutcome({ kind: 'declined', code: 'insufficient_funds', message: 'Insufficient funds.', soft: true }, state, later))
      .then([{ ...hardDecline, data: { ...hardDecline.data, failureCode: 'insufficient_funds', failureMessage: 'Insufficient funds.', retryable: true } }]);
  });

  it('an unreachable gateway fails retryably', () => {
    spec
      .given([created])
      .when((state) => decideRecordOutcome({ kind: 'unreachable', message: 'connection refused' }, state, later))
      .then([{ ...hardDecline, data: { ...hardDecline.data, failureCode: 'gateway_unreachable', failureMessage: 'connection refused', retryable: true } }]);
  });

  it('an unknown outcome records nothing: the payment stays pending', () => {
    spec
      .given([created])
      .when((state) => decideRecordOutcome({ kind: 'unknown' }, state, later))
      .then([]);
  });

  it.each<[string, PaymentEvent[]]>([
    ['succeeded', [created, succeeded]],
    ['failed', [created, hardDecline]],
  ])('is idempotent on a %s payment: a second report records nothing', (_, history) => {
    spec
      .given(history)
      .when((state) => decideRecordOutcome({ kind: 'succeeded', providerReference: 'ch_2' }, state, later))
      .then([]);
  });

  it('refuses to record an outcome without a payment', () => {
    spec
      .given([])
      .when((state) => decideRecordOutcome({ kind: 'succeeded', providerReference: 'ch_1' }, state, later))
      .thenThrows({ name: 'Error' });
  });
});

describe('decideRefund', () => {
  it('reserves part of a succeeded payment', () => {
    spec
      .given([created, succeeded])
      .when((state) => decideRefund({ refundId: 'r-1', amount: 500 }, state, later))
      .then([requested('r-1', 500)]);
  });

  it('reserves exactly what is left', () => {
    spec
      .given([created, succeeded, refunded('r-1', 500)])
      .when((state) => decideRefund({ refundId: 'r-2', amount: 12_000 }, state, later))
      .then([requested('r-2', 12_000)]);
  });

  it("a credit note's refund carries the credit note from the request to the refund made (invoicing learns it is made)", () => {
    const reserved = decideRefund({ refundId: 'r-1', amount: 500, creditNoteId: 'cn-1' }, foldEvents(paymentEvolver, [created, succeeded]), later);
    expect(reserved).toEqual([{ ...requested('r-1', 500), data: { ...requested('r-1', 500).data, creditNoteId: 'cn-1' } }]);
    spec
      .given([created, succeeded, ...reserved])
      .when((state) => decideRecordRefundOutcome('r-1', { kind: 'succeeded', providerReference: 're_r-1' }, state, later))
      .then([{ ...refundMade('r-1', 500), data: { ...refundMade('r-1', 500).data, creditNoteId: 'cn-1' } }]);
  });

  it('counts pending refunds against the payment, and says so', () => {
    spec
      .given([created, succeeded, requested('r-1', 12_000)])
      .when((state) => decideRefund({ refundId: 'r-2', amount: 501 }, state, later))
      .thenThrows({
        code: 'refund-exceeds-payment',
        errors: [{ pointer: '/amount', detail: 'must not exceed the refundable amount of 500 (1 refund still pending at the provider count against it)' }],
      });
  });

  it('bounds a direct refund by what its invoice leaves after its credit notes, and says so', () => {
    spec
      .given([created, succeeded])
      .when((state) => decideRefund({ refundId: 'r-1', amount: 2_501, refundableOfInvoice: 2_500 }, state, later))
      .thenThrows({ code: 'refund-exceeds-payment', errors: [{ pointer: '/amount', detail: expect.stringContaining('must not exceed 2500') }] });
    spec
      .given([created, succeeded])
      .when((state) => decideRefund({ refundId: 'r-1', amount: 2_500, refundableOfInvoice: 2_500 }, state, later))
      .then([requested('r-1', 2_500)]);
  });

  it('a failed refund makes its amount refundable again', () => {
    spec
      .given([created, succeeded, requested('r-1', 12_500), refundFailed('r-1')])
      .when((state) => decideRefund({ refundId: 'r-2', amount: 12_500 }, state, later))
      .then([requested('r-2', 12_500)]);
  });

  it('decides nothing for a refund id already reserved (a retried request)', () => {
    spec
      .given([created, succeeded, requested('r-1', 500)])
      .when((state) => decideRefund({ refundId: 'r-1', amount: 500 }, state, later))
      .then([]);
  });

  it('refuses more than is left, with the refundable amount in the detail', () => {
    spec
      .given([created, succeeded, refunded('r-1', 500)])
      .when((state) => decideRefund({ refundId: 'r-2', amount: 12_001 }, state, later))
      .thenThrows({ code: 'refund-exceeds-payment', errors: [{ pointer: '/amount', detail: 'must not exceed the refundable amount of 12000' }] });
  });

  it('says so when the payment is fully refunded', () => {
    spec
      .given([created, succeeded, refunded('r-1', 12_500)])
      .when((state) => decideRefund({ refundId: 'r-2', amount: 1 }, state, later))
      .thenThrows({
        code: 'refund-exceeds-payment',
        errors: [{ pointer: '/amount', detail: 'must not exceed the refundable amount of 0: the payment is fully refunded' }],
      });
  });

  it.each([0, -1, 2.5, '5', null])('refuses amount %p at /amount', (amount) => {
    spec
      .given([created, succeeded])
      .when((state) => decideRefund({ refundId: 'r-1', amount }, state, later))
      .thenThrows(invalidAt('/amount'));
  });

  it.each<[string, PaymentEvent[]]>([
    ['pending', [created]],
    ['failed', [created, hardDecline]],
  ])('conflicts on a %s payment', (_, history) => {
    spec
      .given(history)
      .when((state) => decideRefund({ refundId: 'r-1', amount: 1 }, state, later))
      .thenThrows({ kind: 'conflict', code: 'payment-not-refundable' });
  });

  it('is not found without a payment', () => {
    spec
      .given([])
      .when((state) => decideRefund({ refundId: 'r-1', amount: 1, paymentId: 'pay-9' }, state, later))
      .thenThrows({ kind: 'not_found', message: 'payment pay-9 was not found' });
  });

  // Oracle: a running total. Each request is accepted exactly when it fits what is left, whatever the order.
  // Accepted refunds are made by the gateway at once here; the reservation rules are covered above.
  it('never refunds more than the payment, however refunds arrive', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.array(fc.integer({ min: -10, max: 60_000 }), { maxLength: 30 }), (amount, requests) => {
        const history: PaymentEvent[] = [{ ...created, data: { ...created.data, amount } }, succeeded];
        let left = amount;
        requests.forEach((request, i) => {
          const state = foldEvents(paymentEvolver, history);
          const fits = request >= 1 && request <= left;
          try {
            const events = decideRefund({ refundId: `r-${i}`, amount: request }, state, later);
            expect(fits).toBe(true);
            history.push(...events);
            history.push(
              ...decideRecordRefundOutcome(`r-${i}`, { kind: 'succeeded', providerReference: `re-${i}` }, foldEvents(paymentEvolver, history), later),
            );
            left -= request;
          } catch (error) {
            expect(error).toBeInstanceOf(ValidationError);
            expect(fits).toBe(false);
          }
        });
        const final = foldEvents(paymentEvolver, history);
        expect(final.status === 'succeeded' && final.refundedAmount).toBe(amount - left);
        expect(refundableAmount(final)).toBe(left);
      }),
    );
  });
});

describe('decideRecordRefundOutcome', () => {
  const given = [created, succeeded, requested('r-1', 500)];

  it('a refund the gateway made is recorded with its provider reference and the invoice', () => {
    spec
      .given(given)
      .when((state) => decideRecordRefundOutcome('r-1', { kind: 'succeeded', providerReference: 're_r-1' }, state, later))
      .then([refundMade('r-1', 500)]);
  });

  it('a refused refund fails with the gateway code', () => {
    spec
      .given(given)
      .when((state) => decideRecordRefundOutcome('r-1', { kind: 'declined', code: 'charge_not_found', message: 'no' }, state, later))
      .then([refundFailed('r-1')]);
  });

  it('an unreached gateway fails it as gateway_unreachable (nothing was refunded)', () => {
    spec
      .given(given)
      .when((state) => decideRecordRefundOutcome('r-1', { kind: 'unreachable', message: 'no' }, state, later))
      .then([refundFailed('r-1', 'gateway_unreachable')]);
  });

  it('an unknown outcome records nothing: the refund stays pending', () => {
    spec
      .given(given)
      .when((state) => decideRecordRefundOutcome('r-1', { kind: 'unknown' }, state, later))
      .then([]);
  });

  it.each<[string, PaymentEvent]>([
    ['made', refundMade('r-1', 500)],
    ['failed', refundFailed('r-1')],
  ])('a refund already %s takes no second outcome', (_, outcome) => {
    spec
      .given([...given, outcome])
      .when((state) => decideRecordRefundOutcome('r-1', { kind: 'succeeded', providerReference: 're_other' }, state, later))
      .then([]);
  });

  it('refuses an outcome for a refund never requested (a wiring bug)', () => {
    spec
      .given([created, succeeded])
      .when((state) => decideRecordRefundOutcome('r-9', { kind: 'unknown' }, state, later))
      .thenThrows({ name: 'Error' });
    spec
      .given([])
      .when((state) => decideRecordRefundOutcome('r-9', { kind: 'unknown' }, state, later))
      .thenThrows({ name: 'Error' });
  });
});

describe('interim outcomes: processing and requires_action', () => {
  const actionRequired: PaymentActionRequired = {
    type: 'PaymentActionRequired',
    schemaVersion: 1,
    data: { paymentId: 'pay-1', providerReference: 'pi_1', nextActionUrl: 'https://hooks.stripe.com/3d_secure/pi_1', requiredAt: LATER },
  };
  const processing: PaymentProcessing = {
    type: 'PaymentProcessing',
    schemaVersion: 1,
    data: { paymentId: 'pay-1', providerReference: 'pi_1', processingAt: LATER },
  };

  it('records requires_action with where the customer acts, and folds it with nextAction', () => {
    spec
      .given([created])
      .when((state) =>
        decideRecordOutcome({ kind: 'requires_action', providerReference: 'pi_1', nextActionUrl: 'https://hooks.stripe.com/3d_secure/pi_1' }, state, later),
      )
      .then([actionRequired]);
    expect(foldEvents(paymentEvolver, [created, actionRequired])).toMatchObject({
      status: 'requires_action',
      providerReference: 'pi_1',
      nextAction: { url: 'https://hooks.stripe.com/3d_secure/pi_1' },
    });
  });

  it('records the same requires_action only once', () => {
    spec
      .given([created, actionRequired])
      .when((state) =>
        decideRecordOutcome({ kind: 'requires_action', providerReference: 'pi_1', nextActionUrl: actionRequired.data.nextActionUrl }, state, later),
      )
      .then([]);
  });

  it('records processing (the gateway reference) once; a requires_action payment goes back to pending without nextAction', () => {
    spec
      .given([created])
      .when((state) => decideRecordOutcome({ kind: 'processing', providerReference: 'pi_1' }, state, later))
      .then([processing]);
    spec
      .given([created, processing])
      .when((state) => decideRecordOutcome({ kind: 'processing', providerReference: 'pi_1' }, state, later))
      .then([]);
    const folded = foldEvents(paymentEvolver, [created, actionRequired, processing]);
    expect(folded).toMatchObject({ status: 'pending', providerReference: 'pi_1' });
    expect(folded).not.toHaveProperty('nextAction');
  });

  it('a requires_action payment takes its final outcome, which clears nextAction', () => {
    const folded = foldEvents(paymentEvolver, [created, actionRequired, succeeded]);
    expect(folded).toMatchObject({ status: 'succeeded', providerReference: 'ch_1' });
    expect(folded).not.toHaveProperty('nextAction');
    spec
      .given([created, actionRequired])
      .when((state) => decideRecordOutcome({ kind: 'declined', code: 'card_declined', message: 'declined', soft: false }, state, later))
      .then([{ ...hardDecline, data: { ...hardDecline.data, failureMessage: 'declined' } }]);
  });

  it('an interim outcome after the final one records nothing (a late gateway event)', () => {
    spec
      .given([created, succeeded])
      .when((state) => decideRecordOutcome({ kind: 'processing', providerReference: 'pi_1' }, state, later))
      .then([]);
    spec
      .given([created, hardDecline])
      .when((state) => decideRecordOutcome({ kind: 'requires_action', providerReference: 'pi_1', nextActionUrl: null }, state, later))
      .then([]);
  });
});

describe('decideDispute', () => {
  const opened = { disputeId: 'dp_1', amount: 12_500, reason: 'fraudulent', closed: null } as const;
  const disputed: PaymentDisputed = {
    type: 'PaymentDisputed',
    schemaVersion: 1,
    data: { paymentId: 'pay-1', invoiceId: 'inv-1', disputeId: 'dp_1', amount: 12_500, reason: 'fraudulent', disputedAt: LATER },
  };
  const closed = (won: boolean): PaymentDisputeClosed => ({
    type: 'PaymentDisputeClosed',
    schemaVersion: 1,
    data: { paymentId: 'pay-1', invoiceId: 'inv-1', disputeId: 'dp_1', amount: 12_500, won, closedAt: LATER },
  });

  it('opens a dispute on a succeeded payment', () => {
    spec
      .given([created, succeeded])
      .when((state) => decideDispute(opened, state, later))
      .then([disputed]);
    expect(foldEvents(paymentEvolver, [created, succeeded, disputed])).toMatchObject({ status: 'disputed', dispute: { id: 'dp_1', status: 'open' } });
  });

  it('the same opening again records nothing', () => {
    spec
      .given([created, succeeded, disputed])
      .when((state) => decideDispute(opened, state, later))
      .then([]);
  });

  it('won: the payment succeeded again; lost: it stays disputed', () => {
    spec
      .given([created, succeeded, disputed])
      .when((state) => decideDispute({ ...opened, closed: 'won' }, state, later))
      .then([closed(true)]);
    expect(foldEvents(paymentEvolver, [created, succeeded, disputed, closed(true)])).toMatchObject({ status: 'succeeded', dispute: { status: 'won' } });
    expect(foldEvents(paymentEvolver, [created, succeeded, disputed, closed(false)])).toMatchObject({ status: 'disputed', dispute: { status: 'lost' } });
  });

  it('a close reported before the opening records both; the opening arriving after records nothing', () => {
    spec
      .given([created, succeeded])
      .when((state) => decideDispute({ ...opened, closed: 'lost' }, state, later))
      .then([disputed, closed(false)]);
    spec
      .given([created, succeeded, disputed, closed(false)])
      .when((state) => decideDispute(opened, state, later))
      .then([]);
    spec
      .given([created, succeeded, disputed, closed(false)])
      .when((state) => decideDispute({ ...opened, closed: 'lost' }, state, later))
      .then([]);
  });

  it('refuses a payment that has not succeeded, and a second dispute', () => {
    spec
      .given([created])
      .when((state) => decideDispute(opened, state, later))
      .thenThrows({ code: 'payment-not-disputable' });
    spec
      .given([created, succeeded, disputed])
      .when((state) => decideDispute({ ...opened, disputeId: 'dp_2' }, state, later))
      .thenThrows({ code: 'payment-disputed' });
  });

  it('a disputed payment is not refundable', () => {
    expect(refundableAmount(foldEvents(paymentEvolver, [created, succeeded, disputed]))).toBe(0);
  });
});
