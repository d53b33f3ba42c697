import { StreamRef } from '@billing/event-store';
import { uuidV5 } from '@billing/shared-kernel';
import { EMAIL_DELIVERY_STREAM_TYPE, EMAIL_SETTINGS_STREAM_TYPE, INVOICE_EMAIL_REQUEST_STREAM_TYPE } from './domain';

/** Fixed namespaces of the name-based ids (random v4 uuids chosen once; never change them). */
const SETTINGS_NAMESPACE = '3f6c1a2e-8b47-4d19-9e0a-5c7d2b8f4e61';
const REQUEST_NAMESPACE = 'a8e24c17-3d9b-4f60-b2a5-71c6e0d94b38';
const DELIVERY_NAMESPACE = '6d0b9f3a-2c58-4e71-8a4d-e95f1b7c2036';

export function emailSettingsStream(environmentId: string): StreamRef {
  return { environmentId, streamType: EMAIL_SETTINGS_STREAM_TYPE, streamId: uuidV5(environmentId, SETTINGS_NAMESPACE) };
}

export function invoiceEmailRequestStream(environmentId: string, invoiceId: string): StreamRef {
  return { environmentId, streamType: INVOICE_EMAIL_REQUEST_STREAM_TYPE, streamId: uuidV5(`${environmentId}\u0000${invoiceId}`, REQUEST_NAMESPACE) };
}

/** A delivery's id: exactly one per (causing event, recipient), whoever queues it and however often. */
export function emailDeliveryIdFor(eventId: string, recipient: string): string {
  return uuidV5(`${eventId}\u0000${recipient.toLowerCase()}`, DELIVERY_NAMESPACE);
}

export function emailDeliveryStream(environmentId: string, deliveryId: string): StreamRef {
  return { environmentId, streamType: EMAIL_DELIVERY_STREAM_TYPE, streamId: deliveryId };
}
