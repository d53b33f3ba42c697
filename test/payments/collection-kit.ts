import { randomUUID } from 'node:crypto';
import { EnvironmentCall } from '@billing/testing';

/**
 * An environment set up for collection on its test clock: the clock at
 * 2026-01-20 12:00 UTC, the sandbox enabled with `secretKey` (or `provider`
 * with its credentials), optional payment settings, and a subscription from
 * 2026-02-01 to a monthly 25.00 EUR price billed in advance, paid with
 * `token` of that provider (or, for the customer record `customerId`, with
 * its default payment method). Answers the subscription.
 */
export async function collectingSubscription(
  call: EnvironmentCall,
  {
    secretKey,
    token,
    settings,
    provider = { name: 'sandbox', credentials: { secretKey } },
    customerId,
  }: {
    secretKey?: string;
    token?: string;
    customerId?: string;
    settings?: { retryDays: number[]; paymentTermsDays?: number; afterLastFailure?: string };
    provider?: { name: string; credentials: object };
  },
): Promise<any> {
  await call('POST', '/test-clock/advance', { to: '2026-01-20T12:00:00.000Z' }, 200);
  await call('POST', '/paymentproviders/enable', provider, 200);
  if (settings) await call('PUT', '/paymentsettings', settings, 200);
  const productId = (await call('POST', '/products', { name: 'Plan' }, 201)).body.id;
  const price = {
    name: 'Monthly',
    priceModel: 'fee',
    pricing: { eur: { unitAmount: 2500 } },
    purchase: 'recurring',
    termCount: 1,
    termUnit: 'month',
    billingTiming: 'advance',
    productId,
  };
  const priceId = (await call('POST', '/prices', price, 201)).body.id;
  const subscription = {
    ...(customerId ? { customerId } : { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' } }),
    currency: 'EUR',
    term: { start: '2026-02-01', end: null },
    items: [{ priceId }],
    ...(token === undefined ? {} : { paymentMethod: { provider: provider.name, token } }),
  };
  return (await call('POST', '/subscriptions', subscription, 201)).body;
}
