import { StreamRef } from '@billing/event-store';
import { uuidV5 } from '@billing/shared-kernel';
import { INVOICE_PAYMENTS_STREAM_TYPE, PAYMENT_PROVIDER_STREAM_TYPE, PAYMENT_STREAM_TYPE } from './domain';

/** Fixed namespaces of the name-based ids (random v4 uuids chosen once; never change them). */
const PROVIDER_NAMESPACE = '5e2b8d14-6f3a-4c97-a1d0-93b7e4c2f861';
const INVOICE_PAYMENTS_NAMESPACE = 'c41f7a92-0d6e-4b58-8e3a-2f9c1b7d5a06';

/** One stream per payment; its id is the payment id (a random uuid, also the gateway's idempotency reference). */
export function paymentStream(environmentId: string, paymentId: string): StreamRef {
  return { environmentId, streamType: PAYMENT_STREAM_TYPE, streamId: paymentId };
}

/** One stream per (environment, provider name). */
export function providerStream(environmentId: string, name: string): StreamRef {
  return { environmentId, streamType: PAYMENT_PROVIDER_STREAM_TYPE, streamId: uuidV5(`${environmentId}\u0000${name}`, PROVIDER_NAMESPACE) };
}

/** One stream per invoice that serialises its payments (see invoice-payments.ts). */
export function invoicePaymentsStream(environmentId: string, invoiceId: string): StreamRef {
  return { environmentId, streamType: INVOICE_PAYMENTS_STREAM_TYPE, streamId: uuidV5(`${environmentId}\u0000${invoiceId}`, INVOICE_PAYMENTS_NAMESPACE) };
}
