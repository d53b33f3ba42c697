import { DataSource } from 'typeorm';
import { createTestDataSource } from '@billing/testing';
import { ASYNC_COMMIT } from './async-commit';

describe('ASYNC_COMMIT (Postgres)', () => {
  let close: () => Promise<void>;
  let dataSource: DataSource;

  beforeAll(async () => {
    ({ dataSource, close } = await createTestDataSource());
  });

  afterAll(async () => {
    await close();
  });

  it("turns the flush wait off for the statement's own transaction only, not for the connection", async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(`select 1 from ${ASYNC_COMMIT}`);
      expect(await runner.query(`show synchronous_commit`)).toEqual([{ synchronous_commit: 'off' }]);
      await runner.commitTransaction();
      expect(await runner.query(`show synchronous_commit`)).toEqual([{ synchronous_commit: 'on' }]);
      // Outside a transaction block the statement is its own transaction: the next one waits for the flush again.
      await runner.query(`select 1 from ${ASYNC_COMMIT}`);
      expect(await runner.query(`show synchronous_commit`)).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await runner.release();
    }
  });
});
