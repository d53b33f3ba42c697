import { invoicingMigrations } from '@billing/invoicing';
import { startTestApp, TestApp } from '@billing/testing';

type Migration = new () => { up(runner: unknown): Promise<void>; down(runner: unknown): Promise<void> };

/**
 * Migration InvoiceStateAsText1764600930000 (invoices.state from jsonb to JSON text, with the hosted link's version
 * and the customer record in columns of their own), down and up again on rows the service wrote: a draft made out
 * to a customer record and a booked invoice whose hosted link was rotated.
 */
describe('invoicing migration InvoiceStateAsText', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('keeps every state and fills hosted_link_version and customer_record_id from it; the API answers the same after', async () => {
    const line = { title: 'Seats', quantity: 2, unitAmount: 1_500 };
    const customer = (await t.request('POST', '/customers', { body: { currency: 'EUR', name: 'Record Oy' } })).body;
    const draft = (await t.request('POST', '/invoices', { body: { customerId: customer.id, currency: 'EUR', items: [line] } })).body;
    const booked = (
      await t.request('POST', '/invoices', { body: { customer: { id: customer.id, handle: null, name: 'Inline' }, currency: 'EUR', items: [line] } })
    ).body;
    expect((await t.request('PUT', `/invoices/${booked.id}/book`, { body: {} })).status).toBe(200);
    expect((await t.request('PUT', `/invoices/${booked.id}/hosted-link/rotate`, { body: {} })).status).toBe(200);
    const answers = async () => Promise.all([draft.id, booked.id].map(async (id) => (await t.request('GET', `/invoices/${id}`)).body));
    const before = await answers();
    const rows = async (state: string) =>
      t.dataSource.query(`select id, ${state} as state, hosted_link_version, customer_record_id from invoices where environment_id = $1 order by id`, [
        t.environmentId,
      ]);
    const written = await rows('state::jsonb');
    expect(written).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: draft.id, hosted_link_version: 0, customer_record_id: customer.id }),
        expect.objectContaining({ id: booked.id, hosted_link_version: 1, customer_record_id: null }),
      ]),
    );

    const Migration = invoicingMigrations.find((m) => m.name === 'InvoiceStateAsText1764600930000') as Migration;
    const runner = t.dataSource.createQueryRunner();
    try {
      await new Migration().down(runner);
      const asJsonb = await t.dataSource.query(`select id, state from invoices where environment_id = $1 order by id`, [t.environmentId]);
      expect(asJsonb).toEqual(written.map(({ id, state }: { id: string; state: unknown }) => ({ id, state })));
      await new Migration().up(runner);
    } finally {
      await runner.release();
    }
    expect(await rows('state::jsonb')).toEqual(written);
    expect(await answers()).toEqual(before);
    expect(before[0].customer.name).toBe('Record Oy');
  });
});
