import { StreamRef } from '@billing/event-store';
import { uuidV5 } from '@billing/shared-kernel';
import {
  INVOICE_COLLECTION_STREAM_TYPE,
  INVOICE_PAYMENTS_STREAM_TYPE,
  PAYMENT_PROVIDER_STREAM_TYPE,
  PAYMENT_SETTINGS_STREAM_TYPE,
  PAYMENT_STREAM_TYPE,
} from './domain';

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

const SETTINGS_NAMESPACE = '9b3d6e21-4a7f-4c08-b5e2-7f1a3c9d0e54';
const COLLECTION_NAMESPACE = 'e7a1c3f5-2b9d-4e60-8c4a-5d7f0b2e9a13';

/** One stream per environment: its payment settings. */
export function paymentSettingsStream(environmentId: string): StreamRef {
  return { environmentId, streamType: PAYMENT_SETTINGS_STREAM_TYPE, streamId: uuidV5(environmentId, SETTINGS_NAMESPACE) };
}

/** One stream per invoice collected automatically (see collection.ts). */
export function collectionStream(environmentId: string, invoiceId: string): StreamRef {
  return { environmentId, streamType: INVOICE_COLLECTION_STREAM_TYPE, streamId: uuidV5(`${environmentId}\u0000${invoiceId}`, COLLECTION_NAMESPACE) };
}
