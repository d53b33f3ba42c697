import { StreamRef } from '@billing/event-store';
import { uuidV5 } from '@billing/shared-kernel';

/** Stream types: stored in every event row, never renamed. */
export const INVOICE_STREAM = 'invoice';
export const TAX_CODE_STREAM = 'tax-code';

/** Fixed namespace of the tax-code stream ids (a random v4 uuid chosen once; never change it). */
const TAX_CODE_NAMESPACE = '6f1b7c52-9d3e-4c1a-8f0b-2a7e5d9c4b13';

/** One stream per invoice (and credit note); its id is the invoice id, a random uuid the service chooses. */
export function invoiceStream(environmentId: string, invoiceId: string): StreamRef {
  return { environmentId, streamType: INVOICE_STREAM, streamId: invoiceId };
}

/**
 * One stream per (environment, code): its id is a name-based uuid (RFC 9562
 * version 5, SHA-1) of the environment and the code, so creating the same code
 * twice collides on the stream and concurrent creates cannot both succeed.
 */
export function taxCodeStreamId(environmentId: string, code: string): string {
  return uuidV5(`${environmentId}\u0000${code}`, TAX_CODE_NAMESPACE);
}

export function taxCodeStream(environmentId: string, code: string): StreamRef {
  return { environmentId, streamType: TAX_CODE_STREAM, streamId: taxCodeStreamId(environmentId, code) };
}

export const CUSTOMER_STREAM = 'customer';
export const CUSTOMER_HANDLE_STREAM = 'customer-handle';

/** Fixed namespace of the customer-handle claim stream ids (a random v4 uuid chosen once; never change it). */
const CUSTOMER_HANDLE_NAMESPACE = 'b6e3d1a8-4f27-4c59-9e0a-7d21c8f35b94';

/** One stream per customer; its id is the customer id, a random uuid the service chooses. */
export function customerStream(environmentId: string, customerId: string): StreamRef {
  return { environmentId, streamType: CUSTOMER_STREAM, streamId: customerId };
}

/**
 * One stream per (environment, handle) that claims the handle: a create or a
 * handle change appends to it in the same transaction as the customer, so two
 * customers never hold one handle.
 */
export function customerHandleStream(environmentId: string, handle: string): StreamRef {
  return { environmentId, streamType: CUSTOMER_HANDLE_STREAM, streamId: uuidV5(`${environmentId}\u0000${handle}`, CUSTOMER_HANDLE_NAMESPACE) };
}
