import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '@billing/testing';
import { invoicingMigrations } from '@billing/invoicing';

/** Data migrations of the invoicing read model, run against rows in the shape they had before. */
describe('invoicing read-model migrations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('OmitNullDiscountPercentage drops percentage: null from stored line discounts and keeps everything else', async () => {
    const id = randomUUID();
    const items = [
      { id: 'a', discount: { percentage: null, amount: 0 } },
      { id: 'b', discount: { percentage: 12.5, amount: 125 } },
      { id: 'c', discount: { percentage: null, amount: 998 } },
    ];
    await t.dataSource.query(
      `insert into invoices (environment_id, id, status, type, settlement_status, customer_id, handle, created_at, version, view)
       values ($1, $2, 'draft', 'invoice', 'not_settled', 'c', null, now(), 1, $3)`,
      [t.environmentId, id, JSON.stringify({ id, memo: null, items })],
    );
    const Migration = invoicingMigrations.find((m) => m.name === 'OmitNullDiscountPercentage1763700110000') as new () => {
      up(runner: unknown): Promise<void>;
      down(runner: unknown): Promise<void>;
    };
    const runner = t.dataSource.createQueryRunner();
    try {
      await new Migration().up(runner);
      const [row] = await t.dataSource.query(`select view from invoices where id = $1`, [id]);
      expect(row.view).toEqual({
        id,
        memo: null,
        items: [
          { id: 'a', discount: { amount: 0 } },
          { id: 'b', discount: { percentage: 12.5, amount: 125 } },
          { id: 'c', discount: { amount: 998 } },
        ],
      });
      await new Migration().down(runner);
      const [restored] = await t.dataSource.query(`select view from invoices where id = $1`, [id]);
      expect(restored.view).toEqual({ id, memo: null, items });
    } finally {
      await runner.release();
    }
  });

  it('StoreInvoicingState fills tax_codes.state from each row (the rate in basis points) and adds an empty invoices.state, folded later by the projection', async () => {
    const Migration = invoicingMigrations.find((m) => m.name === 'StoreInvoicingState1763700120000') as new () => {
      up(runner: unknown): Promise<void>;
      down(runner: unknown): Promise<void>;
    };
    const environmentId = randomUUID();
    const invoiceId = randomUUID();
    const runner = t.dataSource.createQueryRunner();
    try {
      await new Migration().down(runner);
      // Rows as the service wrote them before the state was stored.
      const view = {
        code: 'VAT255',
        rate: 0.255,
        taxable: true,
        description: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-02T00:00:00.000Z',
      };
      await t.dataSource.query(
        `insert into tax_codes (environment_id, code, stream_id, rate, taxable, version, view) values ($1, 'VAT255', $2, 0.255, true, 2, $3)`,
        [environmentId, randomUUID(), JSON.stringify(view)],
      );
      await t.dataSource.query(
        `insert into invoices (environment_id, id, status, type, settlement_status, customer_id, handle, created_at, version, view)
         values ($1, $2, 'draft', 'invoice', 'settled', 'c', null, now(), 1, '{}')`,
        [environmentId, invoiceId],
      );
      await new Migration().up(runner);
      const [taxCode] = await t.dataSource.query(`select state from tax_codes where environment_id = $1`, [environmentId]);
      expect(taxCode.state).toEqual({
        status: 'active',
        code: 'VAT255',
        rateBasisPoints: 2550,
        taxable: true,
        description: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-02T00:00:00.000Z',
      });
      const [invoice] = await t.dataSource.query(`select state from invoices where environment_id = $1`, [environmentId]);
      expect(invoice.state).toBeNull();
      await expect(t.dataSource.query(`update tax_codes set state = null where environment_id = $1`, [environmentId])).rejects.toThrow(/null/);
    } finally {
      await runner.release();
    }
  });
});
