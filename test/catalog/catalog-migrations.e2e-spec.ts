import { randomUUID } from 'node:crypto';
import { catalogMigrations } from '@billing/catalog';
import { startTestApp, TestApp } from '@billing/testing';

/** Data migrations of the catalog read model, run against rows in the shape they had before. */
describe('catalog read-model migrations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('OmitNullPriceMembers drops null description, termCount and termUnit from stored Price views, and only those', async () => {
    const oneTime = {
      id: randomUUID(),
      name: 'Setup',
      description: null,
      purchase: 'one_time',
      termCount: null,
      termUnit: null,
      productId: null,
      archivedAt: null,
    };
    const recurring = {
      id: randomUUID(),
      name: 'Pro',
      description: 'notes',
      purchase: 'recurring',
      termCount: 1,
      termUnit: 'month',
      productId: null,
      archivedAt: null,
    };
    for (const [position, view] of [oneTime, recurring].entries()) {
      await t.dataSource.query(
        `insert into prices (environment_id, id, product_id, archived, position, version, state, view) values ($1, $2, null, false, $3, 1, '{}', $4)`,
        [t.environmentId, view.id, position + 1, JSON.stringify(view)],
      );
    }
    const Migration = catalogMigrations.find((m) => m.name === 'OmitNullPriceMembers1763700210000') as new () => {
      up(runner: unknown): Promise<void>;
      down(runner: unknown): Promise<void>;
    };
    const runner = t.dataSource.createQueryRunner();
    const views = async () =>
      (await t.dataSource.query(`select view from prices where environment_id = $1 order by position`, [t.environmentId])).map(
        (row: { view: unknown }) => row.view,
      );
    try {
      await new Migration().up(runner);
      const { description: _d, termCount: _c, termUnit: _u, ...omitted } = oneTime;
      expect(await views()).toEqual([omitted, recurring]);
      await new Migration().down(runner);
      expect(await views()).toEqual([oneTime, recurring]);
    } finally {
      await runner.release();
    }
  });
});
