import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createDataSource, runMigrations } from '../../apps/api/src/database/data-source';
import { ensureDatabase } from '../../apps/api/src/database/embedded-postgres';
import { ALL_MIGRATIONS } from '../../apps/api/src/database/migrations';
import { databaseUrlFor } from '../support/database-url';

/**
 * Issue: "Fifteen processes started at the same moment on a fresh database: ten
 * crashed in the migrations." Migrations and database creation must be safe to
 * run concurrently. (test/processes/concurrent-start.e2e-spec.ts does the same
 * with fifteen real service processes.)
 */
describe('concurrent migrations on a fresh database', () => {
  const adminUrl = () => {
    const url = process.env.TEST_PG_ADMIN_URL;
    if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: globalSetup did not run');
    return url;
  };
  const created: string[] = [];

  afterAll(async () => {
    const admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    try {
      for (const name of created) await admin.query(`drop database if exists "${name}" with (force)`);
    } finally {
      await admin.end();
    }
  });

  const freshName = () => {
    const name = `billing_proc_${randomUUID().replace(/-/g, '')}`;
    created.push(name);
    return name;
  };

  it('20 concurrent ensureDatabase calls create the database once and all succeed', async () => {
    const name = freshName();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => ensureDatabase(adminUrl(), name)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    const found = await admin.query('select count(*)::int as n from pg_database where datname = $1', [name]).finally(() => admin.end());
    expect(found.rows[0].n).toBe(1);
  });

  it('15 concurrent runMigrations on a fresh database all succeed and apply every migration exactly once', async () => {
    const name = freshName();
    await ensureDatabase(adminUrl(), name);
    const url = databaseUrlFor(adminUrl(), name);
    let waited = 0;
    const started = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 15 }, () => runMigrations(url, { onWait: () => waited++ })));
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason?.message ?? r.reason)] : []));
    expect(failures).toEqual([]);
    expect(waited).toBeGreaterThan(0); // they really did contend for the lock
    const dataSource = createDataSource({ url, poolSize: 1 });
    await dataSource.initialize();
    try {
      const applied: Array<{ name: string; n: number }> = await dataSource.query(
        'select name, count(*)::int as n from schema_migrations group by name order by name',
      );
      expect(applied.map((row) => row.n)).toEqual(ALL_MIGRATIONS.map(() => 1));
      expect(applied).toHaveLength(ALL_MIGRATIONS.length);
      expect(await dataSource.showMigrations()).toBe(false); // nothing pending
    } finally {
      await dataSource.destroy();
    }
    process.stdout.write(`15 concurrent runMigrations on a fresh database: all done in ${Date.now() - started} ms\n`);
  });

  it('a process that dies holding the migration lock releases it', async () => {
    const name = freshName();
    await ensureDatabase(adminUrl(), name);
    const url = databaseUrlFor(adminUrl(), name);
    const holder = new Client({ connectionString: url });
    await holder.connect();
    await holder.query('select pg_advisory_lock($1, $2)', [0x62696c6c, 0x6d696772]);
    let waited = false;
    const migrating = runMigrations(url, { onWait: () => (waited = true) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(waited).toBe(true);
    await holder.end(); // the session ends as when its process is killed
    await expect(migrating).resolves.toBeUndefined();
  });
});
