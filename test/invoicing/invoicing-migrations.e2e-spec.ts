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
});
