import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@billing/testing';
import { ASYNC_COMMIT } from './async-commit';

describe('ASYNC_COMMIT (Postgres)', () => {
  let database: TestDatabase;
  let client: Client;
  const synchronousCommit = async () => (await client.query<{ synchronous_commit: string }>(`show synchronous_commit`)).rows[0].synchronous_commit;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it("turns the flush wait off for the statement's own transaction only, not for the connection", async () => {
    await client.query('begin');
    await client.query(`select 1 from ${ASYNC_COMMIT}`);
    expect(await synchronousCommit()).toBe('off');
    await client.query('commit');
    expect(await synchronousCommit()).toBe('on');
    // Outside a transaction block the statement is its own transaction: the next one waits for the flush again.
    await client.query(`select 1 from ${ASYNC_COMMIT}`);
    expect(await synchronousCommit()).toBe('on');
  });
});
