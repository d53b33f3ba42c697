import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ALL_MIGRATIONS } from './migrations';

export interface DatabaseOptions {
  readonly url: string;
  readonly poolSize?: number;
  readonly applicationName?: string;
}

/** The service talks SQL through TypeORM's pool; schema changes only through migrations. */
export function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    migrations: ALL_MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    logging: false,
    applicationName: options.applicationName ?? 'billing-service',
    extra: { max: options.poolSize ?? 20 },
  });
}

/**
 * The session-level advisory lock every process takes before migrating (two
 * int4 keys, 'bill' and 'migr', so it cannot collide with the projector's
 * single-key `hashtext(...)` locks).
 */
export const MIGRATION_LOCK_KEYS: readonly [number, number] = [0x62696c6c, 0x6d696772];

/**
 * Applies the pending migrations. Safe to run from any number of processes at
 * the same moment: each one first takes a session-level advisory lock on a
 * dedicated connection, so exactly one migrates at a time and the others, once
 * they get the lock, find nothing left to do. The lock belongs to the session,
 * so a process that dies mid-migration releases it (and its open migration
 * transaction rolls back).
 */
export async function runMigrations(url: string, options: { onWait?: () => void } = {}): Promise<void> {
  const lock = new Client({ connectionString: url, application_name: 'billing-migrations-lock' });
  // A dropped lock connection must not crash the process with an unhandled 'error' event;
  // the migration's own connection reports real failures.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    const [first, second] = MIGRATION_LOCK_KEYS;
    const attempt = await lock.query<{ locked: boolean }>('select pg_try_advisory_lock($1, $2) as locked', [first, second]);
    if (!attempt.rows[0].locked) {
      options.onWait?.();
      await lock.query('select pg_advisory_lock($1, $2)', [first, second]);
    }
    const dataSource = createDataSource({ url, poolSize: 1, applicationName: 'billing-migrations' });
    await dataSource.initialize();
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await dataSource.destroy();
    }
  } finally {
    // Ending the session releases the lock; no explicit unlock round trip needed.
    await lock.end().catch(() => undefined);
  }
}
