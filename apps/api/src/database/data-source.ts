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

export async function runMigrations(url: string): Promise<void> {
  const dataSource = createDataSource({ url, poolSize: 1, applicationName: 'billing-migrations' });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}
