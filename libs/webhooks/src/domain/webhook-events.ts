/**
 * Which webhook notifications a domain event produces. Names are
 * `resource.past_tense`; they are public API, so a domain event may be renamed
 * but its webhook name may not.
 *
 * Not every domain event is announced: InvoiceDuplicated produces nothing
 * (the new invoice's own InvoiceCreated announces it), webhook events describe
 * the subscriptions themselves, and unknown types produce nothing rather than
 * leaking internals.
 */
export const WEBHOOK_EVENT_NAMES = {
  InvoiceCreated: 'invoice.created',
  InvoiceUpdated: 'invoice.updated',
  InvoiceBooked: 'invoice.booked',
  InvoiceSettlementAdded: 'invoice.settlement_added',
  PriceCreated: 'price.created',
  PriceUpdated: 'price.updated',
  PriceArchived: 'price.archived',
  ProductCreated: 'product.created',
  TaxCodeCreated: 'tax_code.created',
  TaxCodeUpdated: 'tax_code.updated',
} as const satisfies Record<string, string>;

/** Derived from data rather than from an event type: emitted along with invoice.settlement_added. */
export const INVOICE_SETTLED = 'invoice.settled';

export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[keyof typeof WEBHOOK_EVENT_NAMES] | typeof INVOICE_SETTLED;

/** Every name a subscriber can receive, for documentation and tests. */
export const ALL_WEBHOOK_EVENT_NAMES: readonly WebhookEventName[] = [...Object.values(WEBHOOK_EVENT_NAMES), INVOICE_SETTLED];

/**
 * Zero or more notification names for one domain event, in sending order.
 * InvoiceSettlementAdded additionally yields invoice.settled when its data says
 * the invoice is settled after this settlement (`data.settlementStatus ===
 * 'settled'`, which the invoicing event must carry).
 */
export function webhookNamesFor(eventType: string, data: unknown): WebhookEventName[] {
  if (!Object.prototype.hasOwnProperty.call(WEBHOOK_EVENT_NAMES, eventType)) return [];
  const name = WEBHOOK_EVENT_NAMES[eventType as keyof typeof WEBHOOK_EVENT_NAMES];
  if (eventType === 'InvoiceSettlementAdded' && isSettled(data)) return [name, INVOICE_SETTLED];
  return [name];
}

function isSettled(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { settlementStatus?: unknown }).settlementStatus === 'settled';
}
