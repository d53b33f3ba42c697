import { createServer } from 'node:net';
import { DataSource } from 'typeorm';
import { createTestDataSource } from '@billing/testing';
import { toProblemParts } from './to-problem';

/**
 * Errors the database raises, as the service meets them (TypeORM's QueryFailedError over pg, or pg's own
 * connection errors), become 503s with Retry-After: the request can be sent again. Real Postgres, a real
 * deadlock, a real refused connection.
 */
describe('database trouble becomes a 503 (Postgres)', () => {
  let close: () => Promise<void>;
  let dataSource: DataSource;

  beforeAll(async () => {
    ({ dataSource, close } = await createTestDataSource());
    await dataSource.query(`create table deadlock_probe (id int primary key, n int not null)`);
    await dataSource.query(`insert into deadlock_probe values (1, 0), (2, 0)`);
  });
  afterAll(() => close());

  it('a deadlock is 503 database-conflict', async () => {
    const [a, b] = [dataSource.createQueryRunner(), dataSource.createQueryRunner()];
    try {
      await Promise.all([a.startTransaction(), b.startTransaction()]);
      await a.query(`update deadlock_probe set n = n + 1 where id = 1`);
      await b.query(`update deadlock_probe set n = n + 1 where id = 2`);
      // Each now waits for the row the other holds: Postgres breaks one of them off.
      const outcomes = await Promise.allSettled([
        a.query(`update deadlock_probe set n = n + 1 where id = 2`),
        b.query(`update deadlock_probe set n = n + 1 where id = 1`),
      ]);
      const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
      expect(failures).toHaveLength(1);
      expect(toProblemParts(failures[0])).toMatchObject({ status: 503, code: 'database-conflict', headers: { 'retry-after': '1' } });
    } finally {
      await Promise.allSettled([a.rollbackTransaction(), b.rollbackTransaction()]);
      await Promise.all([a.release(), b.release()]);
    }
  });

  it('a database that refuses the connection is 503 database-unavailable', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const nowhere = new DataSource({ type: 'postgres', url: `postgres://postgres@127.0.0.1:${port}/none` });
    const error = await nowhere.initialize().then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(toProblemParts(error)).toMatchObject({ status: 503, code: 'database-unavailable' });
  });

  it('any other database error stays a 500 (a defect: the log has it)', async () => {
    const error = await dataSource.query(`select * from no_such_table`).then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(toProblemParts(error)).toMatchObject({ status: 500, code: 'internal-error' });
  });
});
