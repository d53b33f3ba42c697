import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { databaseUrlFor } from './database-url';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file, cloned from the template globalSetup prepared. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (!adminUrl || !template) throw new Error('test database settings missing: globalSetup did not run');
  const name = `billing_test_${randomUUID().replace(/-/g, '')}`;
  await withAdmin(adminUrl, (admin) => admin.query(`create database ${name} template ${template}`));
  return {
    url: databaseUrlFor(adminUrl, name),
    drop: async () => {
      await withAdmin(adminUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function withAdmin<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/** A fresh, migrated database with a TypeORM DataSource on it, for integration tests; `close` destroys both. */
export async function createTestDataSource(): Promise<{ database: TestDatabase; dataSource: DataSource; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const dataSource = new DataSource({ type: 'postgres', url: database.url });
  await dataSource.initialize();
  return {
    database,
    dataSource,
    close: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}
