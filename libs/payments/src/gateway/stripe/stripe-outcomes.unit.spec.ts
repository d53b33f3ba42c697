import { ChargeRequest } from '../payment-gateway';
import { intentParams } from './stripe-gateway';
import { disputeStateOf, failureCodeOf, outcomeOfError, outcomeOfIntent, outcomeOfRefund, refundOutcomeOfError } from './stripe-outcomes';

const intent = (status: string, extra: object = {}) =>
  ({ id: 'pi_1', status, next_action: null, last_payment_error: null, ...extra }) as unknown as Parameters<typeof outcomeOfIntent>[0];

describe('outcomeOfIntent', () => {
  it('succeeded → succeeded with the intent id', () => {
    expect(outcomeOfIntent(intent('succeeded'))).toEqual({ kind: 'succeeded', providerReference: 'pi_1' });
  });

  it.each(['processing', 'requires_capture'])('%s → processing (held, decided later)', (status) => {
    expect(outcomeOfIntent(intent(status))).toEqual({ kind: 'processing', providerReference: 'pi_1' });
  });

  it('requires_action → requires_action with the redirect page, or null without one', () => {
    const url = 'https://hooks.stripe.com/3d_secure_2/hosted?payment_intent=pi_1';
    expect(outcomeOfIntent(intent('requires_action', { next_action: { type: 'redirect_to_url', redirect_to_url: { url, return_url: 'x' } } }))).toEqual({
      kind: 'requires_action',
      providerReference: 'pi_1',
      nextActionUrl: url,
    });
    expect(outcomeOfIntent(intent('requires_action', { next_action: { type: 'use_stripe_sdk' } }))).toMatchObject({ nextActionUrl: null });
  });

  it('requires_payment_method after a failed confirmation → declined, classified by the last error', () => {
    expect(
      outcomeOfIntent(intent('requires_payment_method', { last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'no' } })),
    ).toEqual({ kind: 'declined', code: 'insufficient_funds', message: 'no', soft: true });
    expect(outcomeOfIntent(intent('requires_payment_method', { last_payment_error: { code: 'expired_card', message: 'old' } }))).toEqual({
      kind: 'declined',
      code: 'expired_card',
      message: 'old',
      soft: false,
    });
  });

  it('canceled → declined hard; requires_confirmation → unknown (asked again)', () => {
    expect(outcomeOfIntent(intent('canceled'))).toMatchObject({ kind: 'declined', code: 'canceled', soft: false });
    expect(outcomeOfIntent(intent('requires_confirmation'))).toMatchObject({ kind: 'unknown' });
  });
});

describe('outcomeOfError: soft and hard declines, unreachable and unknown', () => {
  it.each([
    ['insufficient_funds', true],
    ['processing_error', true],
    ['try_again_later', true],
    ['generic_decline', false],
    ['expired_card', false],
    ['incorrect_cvc', false],
    ['stolen_card', false],
    ['fraudulent', false],
    ['authentication_required', false],
  ])('a card error with decline code %s is soft: %p', (declineCode, soft) => {
    expect(outcomeOfError({ type: 'StripeCardError', code: 'card_declined', decline_code: declineCode, message: 'Your card was declined.' })).toEqual({
      kind: 'declined',
      code: declineCode,
      message: 'Stripe: Your card was declined.',
      soft,
    });
  });

  it('the failure code is the decline code when given, else the error code', () => {
    expect(failureCodeOf({ code: 'expired_card' })).toBe('expired_card');
    expect(failureCodeOf({ code: 'card_declined', decline_code: 'stolen_card' })).toBe('stolen_card');
    expect(failureCodeOf({})).toBe('card_declined');
    expect(outcomeOfError({ type: 'StripeCardError', code: 'processing_error' })).toMatchObject({ code: 'processing_error', soft: true });
  });

  it('an invalid request is a hard decline (nothing charged)', () => {
    expect(outcomeOfError({ type: 'StripeInvalidRequestError', code: 'resource_missing', message: 'No such PaymentMethod' })).toMatchObject({
      kind: 'declined',
      code: 'resource_missing',
      soft: false,
    });
  });

  it.each(['StripeRateLimitError', 'StripeAuthenticationError', 'StripePermissionError'])('%s → unreachable (nothing charged, retried)', (type) => {
    expect(outcomeOfError({ type, message: 'x' })).toEqual({ kind: 'unreachable', message: 'Stripe: x' });
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])(
    'a connection never made (%s) is unreachable: nothing was sent',
    (code) => {
      expect(outcomeOfError({ type: 'StripeConnectionError', detail: { code } })).toMatchObject({ kind: 'unreachable' });
    },
  );

  it.each([{ code: 'ECONNRESET' }, { code: 'ETIMEDOUT' }, { code: 'EPIPE' }, {}, undefined])(
    'a connection lost after it was made, or an unknown one (%j), is unknown: the request may have been carried out',
    (detail) => {
      expect(outcomeOfError({ type: 'StripeConnectionError', detail })).toMatchObject({ kind: 'unknown' });
    },
  );

  it('a 500, an idempotency error and anything unexpected are unknown', () => {
    expect(outcomeOfError({ type: 'StripeAPIError', statusCode: 500 })).toMatchObject({ kind: 'unknown' });
    expect(outcomeOfError({ type: 'StripeIdempotencyError' })).toMatchObject({ kind: 'unknown' });
    expect(outcomeOfError({})).toMatchObject({ kind: 'unknown' });
  });
});

describe('refunds and disputes', () => {
  it('maps a refund by its status', () => {
    expect(outcomeOfRefund({ id: 're_1', status: 'succeeded', failure_reason: undefined })).toEqual({ kind: 'succeeded', providerReference: 're_1' });
    expect(outcomeOfRefund({ id: 're_1', status: 'pending', failure_reason: undefined })).toEqual({ kind: 'pending', providerReference: 're_1' });
    expect(outcomeOfRefund({ id: 're_1', status: 'failed', failure_reason: 'expired_or_canceled_card' })).toMatchObject({
      kind: 'declined',
      code: 'expired_or_canceled_card',
    });
  });

  it('a refund call refused is declined without a soft flag', () => {
    expect(refundOutcomeOfError({ type: 'StripeInvalidRequestError', code: 'charge_already_refunded', message: 'x' })).toEqual({
      kind: 'declined',
      code: 'charge_already_refunded',
      message: 'Stripe: x',
    });
  });

  it.each([
    ['won', 'won'],
    ['warning_closed', 'won'],
    ['lost', 'lost'],
    ['needs_response', null],
    ['under_review', null],
  ] as const)('dispute status %s → %p', (status, state) => {
    expect(disputeStateOf(status)).toBe(state);
  });
});

describe('intentParams', () => {
  const request: ChargeRequest = {
    reference: 'pay-1',
    amount: 1250,
    currency: 'EUR',
    token: 'pm_card_visa',
    credentials: null,
    environmentId: 'env-1',
    invoiceId: 'inv-1',
    offSession: false,
    providerReference: null,
    returnUrl: null,
  };

  it('creates and confirms with the amount, lower-case currency, payment method and metadata', () => {
    expect(intentParams(request, 'pm_card_visa')).toEqual({
      amount: 1250,
      currency: 'eur',
      payment_method: 'pm_card_visa',
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      metadata: { paymentId: 'pay-1', invoiceId: 'inv-1', environment: 'env-1' },
    });
  });

  it('off session for collections; the customer named for a cus_ token; a return_url for the hosted page', () => {
    expect(intentParams({ ...request, offSession: true, token: 'cus_1' }, 'pm_1')).toMatchObject({
      off_session: true,
      customer: 'cus_1',
      payment_method: 'pm_1',
    });
    expect(intentParams({ ...request, returnUrl: 'https://pay.example/i/t' }, 'pm_1')).toMatchObject({ return_url: 'https://pay.example/i/t' });
  });
});
