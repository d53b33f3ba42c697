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
