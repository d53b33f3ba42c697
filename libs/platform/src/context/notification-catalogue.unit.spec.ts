import { Module } from '@nestjs/common';
import { EventStore } from '@billing/event-store';
import { BoundedContext } from './bounded-context';
import { NotificationCatalogue } from './notification-catalogue';

@Module({})
class EmptyModule {}

function context(name: string, notifications: BoundedContext['notifications']): BoundedContext {
  return { name, module: EmptyModule, migrations: [], streams: [], projections: [], reactors: [], notifications, problems: {} };
}

const catalogue = new NotificationCatalogue(
  [
    context('invoicing', [
      { name: 'invoice.settlement_added', streamType: 'invoice', eventType: 'InvoiceSettlementAdded', description: '' },
      {
        name: 'invoice.settled',
        streamType: 'invoice',
        eventType: 'InvoiceSettlementAdded',
        description: '',
        when: (data) => (data as { settlementStatus?: string }).settlementStatus === 'settled',
      },
    ]),
    context('catalog', [{ name: 'price.created', streamType: 'price', eventType: 'PriceCreated', description: '' }]),
  ],
  {} as EventStore,
);

describe('NotificationCatalogue', () => {
  it('names the notifications of an event in declaration order, narrowed by `when`', () => {
    expect(catalogue.namesFor({ streamType: 'invoice', type: 'InvoiceSettlementAdded', data: { settlementStatus: 'settled' } })).toEqual([
      'invoice.settlement_added',
      'invoice.settled',
    ]);
    expect(catalogue.namesFor({ streamType: 'invoice', type: 'InvoiceSettlementAdded', data: { settlementStatus: 'under_settled' } })).toEqual([
      'invoice.settlement_added',
    ]);
  });

  it('keys on the stream as well as the event type, and announces nothing it was not told to', () => {
    expect(catalogue.namesFor({ streamType: 'price', type: 'PriceCreated', data: {} })).toEqual(['price.created']);
    expect(catalogue.namesFor({ streamType: 'test-price', type: 'PriceCreated', data: {} })).toEqual([]);
    expect(catalogue.namesFor({ streamType: 'invoice', type: 'InvoiceDuplicated', data: {} })).toEqual([]);
    expect(catalogue.namesFor({ streamType: 'invoice', type: 'constructor', data: {} })).toEqual([]);
  });

  it('lists every notification of every context', () => {
    expect(catalogue.all().map((n) => n.name)).toEqual(['invoice.settlement_added', 'invoice.settled', 'price.created']);
  });
});
