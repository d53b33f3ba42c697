import { ALL_WEBHOOK_EVENT_NAMES, webhookNamesFor } from './webhook-events';

describe('webhookNamesFor', () => {
  it.each([
    ['InvoiceCreated', 'invoice.created'],
    ['InvoiceUpdated', 'invoice.updated'],
    ['InvoiceBooked', 'invoice.booked'],
    ['PriceCreated', 'price.created'],
    ['PriceUpdated', 'price.updated'],
    ['PriceArchived', 'price.archived'],
    ['ProductCreated', 'product.created'],
    ['TaxCodeCreated', 'tax_code.created'],
    ['TaxCodeUpdated', 'tax_code.updated'],
  ])('%s -> %s', (type, name) => {
    expect(webhookNamesFor(type, {})).toEqual([name]);
  });

  it.each([{ settlementStatus: 'under_settled' }, { settlementStatus: 'over_settled' }, {}, null, 'settled'])(
    'InvoiceSettlementAdded with %p -> invoice.settlement_added only',
    (data) => {
      expect(webhookNamesFor('InvoiceSettlementAdded', data)).toEqual(['invoice.settlement_added']);
    },
  );

  it('InvoiceSettlementAdded that settles the invoice -> settlement_added, then settled', () => {
    expect(webhookNamesFor('InvoiceSettlementAdded', { settlementStatus: 'settled' })).toEqual([
      'invoice.settlement_added',
      'invoice.settled',
    ]);
  });

  it.each([
    'InvoiceDuplicated',
    'WebhookSubscribed',
    'WebhookSignatureKeyRotated',
    'WebhookUnsubscribed',
    'WebhookDisabled',
    'SomethingNew',
    'toString',
    '__proto__',
    'constructor',
  ])('%s -> nothing', (type) => {
    expect(webhookNamesFor(type, {})).toEqual([]);
  });

  it('names are resource.past_tense and unique', () => {
    for (const name of ALL_WEBHOOK_EVENT_NAMES) expect(name).toMatch(/^[a-z_]+\.[a-z_]+$/);
    expect(new Set(ALL_WEBHOOK_EVENT_NAMES).size).toBe(ALL_WEBHOOK_EVENT_NAMES.length);
    expect(ALL_WEBHOOK_EVENT_NAMES).toHaveLength(11);
  });
});
