import { startTestApp, TestApp } from '@billing/testing';
import { eventually } from '../webhooks/webhook-test-kit';
import { customer } from './invoicing-helpers';

/**
 * The webhook notifications invoicing publishes (its context definition),
 * queued by the fan-out for real API writes: which names each event gives,
 * and that each carries the resource as of its event. Nothing is sent (the
 * dispatcher is off).
 */
describe('Invoicing notifications', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_DISPATCHER_ENABLED: 'false' } });
    expect((await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://example.com/hooks/invoicing' } })).status).toBe(200);
  });
  afterAll(async () => {
    await t.close();
  });

  interface Notification {
    event_type: string;
    stream_id: string;
    types: string[];
    data: unknown[];
  }

  /** The notifications queued per event of the environment, in log order, once there are `count` of them. */
  function notifications(count: number): Promise<Notification[]> {
    return eventually(
      async () => {
        const rows: Notification[] = await t.dataSource.query(
          `select e.event_type, e.stream_id,
                coalesce(array_agg(n.type order by n.type desc) filter (where n.type is not null), '{}') as types,
                coalesce(array_agg(n.data order by n.type desc) filter (where n.type is not null), '{}') as data
           from events e left join webhook_notifications n on n.event_id = e.event_id and n.environment_id = e.environment_id
          where e.environment_id = $1 and e.stream_type in ('invoice', 'tax-code')
          group by e.global_position, e.event_type, e.stream_id order by e.global_position`,
          [t.environmentId],
        );
        return rows.flatMap((row) => row.types).length === count ? rows : null;
      },
      5000,
      `${count} notifications`,
    );
  }

  it('names each event as the public catalogue says, carrying the resource as of that event; InvoiceDuplicated announces nothing', async () => {
    const taxCode = await t.request('POST', '/tax-codes', { body: { code: 'VAT', rate: 0.25, taxable: true } });
    const taxCodeUpdated = await t.request('PUT', '/tax-codes/VAT', { body: { rate: 0.24 } });
    const created = await t.request('POST', '/invoices', {
      body: { customer: customer(), currency: 'EUR', items: [{ quantity: 1, unitAmount: 1000, taxCode: 'VAT' }] },
    });
    const id = created.body.id;
    const updated = await t.request('PUT', `/invoices/${id}`, {
      body: { date: created.body.date, currency: null, items: [{ quantity: 2, unitAmount: 1000, taxCode: 'VAT' }] },
    });
    const booked = await t.request('PUT', `/invoices/${id}/book`);
    const partly = await t.request('POST', `/invoices/${id}/settlements`, { body: { date: '2026-01-20', amount: 480 } });
    const fully = await t.request('POST', `/invoices/${id}/settlements`, { body: { date: '2026-01-21', amount: 2000 } });
    const creditNote = await t.request('POST', `/invoices/${id}/duplicate`, { body: { reverse: true } });
    const bookedCreditNote = await t.request('PUT', `/invoices/${creditNote.body.id}/book`);
    for (const response of [taxCode, taxCodeUpdated, created, updated, booked, partly, fully, creditNote, bookedCreditNote])
      expect(response.status).toBeLessThan(300);
    expect(fully.body.settlementStatus).toBe('settled');

    const rows = await notifications(13);
    expect(rows.map((row) => [row.event_type, row.types])).toEqual([
      ['TaxCodeCreated', ['tax_code.created']],
      ['TaxCodeUpdated', ['tax_code.updated']],
      ['InvoiceCreated', ['invoice.created']],
      ['InvoiceUpdated', ['invoice.updated']],
      ['InvoiceBooked', ['invoice.booked']],
      ['InvoiceSettlementAdded', ['invoice.settlement_added']],
      ['InvoiceSettlementAdded', ['invoice.settlement_added', 'invoice.settled']],
      ['InvoiceDuplicated', []],
      ['InvoiceCreated', ['invoice.created']],
      // Booking the credit note applies it: a settlement on the credit note (settling it) and on the paid invoice (over-settling it).
      ['InvoiceBooked', ['invoice.booked']],
      ['InvoiceSettlementAdded', ['invoice.settlement_added', 'invoice.settled']],
      ['InvoiceSettlementAdded', ['invoice.settlement_added']],
    ]);
    const dataOf = (index: number) => rows[index].data[0];
    // Notifications carry an invoice as its stream's view: the API's answers add the hosted page link.
    const asNotified = (body: Record<string, unknown>) => {
      const { hostedInvoiceUrl, ...rest } = body;
      return hostedInvoiceUrl === undefined ? body : rest;
    };
    expect(rows[6].data[1]).toEqual(rows[6].data[0]);
    expect([0, 1, 2, 3, 4, 5, 6, 8].map(dataOf)).toEqual(
      [taxCode, taxCodeUpdated, created, updated, booked, partly, fully, creditNote].map((response) => asNotified(response.body)),
    );
    expect(dataOf(9)).toMatchObject({ id: creditNote.body.id, status: 'booked', settlementStatus: 'not_settled', settlements: [] });
    expect(rows[10].stream_id).toBe(creditNote.body.id);
    expect(dataOf(10)).toEqual(asNotified(bookedCreditNote.body));
    expect(rows[11].stream_id).toBe(id);
    expect(dataOf(11)).toEqual(asNotified((await t.request('GET', `/invoices/${id}`)).body));
    expect(dataOf(11)).toMatchObject({ settlementStatus: 'over_settled', totalDue: -2480 });
  });
});
