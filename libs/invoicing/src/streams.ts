import { createHash } from 'node:crypto';
import { StreamRef } from '@billing/event-store';

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
  const namespace = Buffer.from(TAX_CODE_NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(namespace).update(`${environmentId}\u0000${code}`, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function taxCodeStream(environmentId: string, code: string): StreamRef {
  return { environmentId, streamType: TAX_CODE_STREAM, streamId: taxCodeStreamId(environmentId, code) };
}
