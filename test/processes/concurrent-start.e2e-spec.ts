import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { databaseUrlFor } from '../support/database-url';
import { barrierProxy, buildService, freePort, killLeftoverServices, ServiceProcess, startService } from './process-support';

/**
 * Issue: "Fifteen processes started at the same moment on a fresh database:
 * ten crashed in the migrations. Migrations must be safe to start
 * concurrently (all processes come up)." Fifteen real service processes,
 * started together against one fresh, empty database. Node processes boot at
 * different speeds (seconds apart on a small machine), so they reach the
 * database through a proxy that holds their first connections until all
 * fifteen are there: they then migrate at the same moment (without the
 * migration lock, most of them fail here).
 */
describe('fifteen service processes started at the same moment on a fresh database', () => {
  jest.setTimeout(180_000);
  const adminUrl = () => {
    const url = process.env.TEST_PG_ADMIN_URL;
    if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: globalSetup did not run');
    return url;
  };
  const name = `billing_proc_${randomUUID().replace(/-/g, '')}`;
  let build: ReturnType<typeof buildService>;
  const proxies: Array<{ close(): void }> = [];

  async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: adminUrl() });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    build = buildService();
    await admin((client) => client.query(`create database ${name}`));
  });

  afterAll(async () => {
    killLeftoverServices();
    for (const proxy of proxies) proxy.close();
    await admin((client) => client.query(`drop database if exists ${name} with (force)`));
    build?.remove();
  });

  it('all come up (ready), and all stop cleanly', async () => {
    const proxy = await barrierProxy(databaseUrlFor(adminUrl(), name), 15);
    proxies.push(proxy);
    const url = proxy.url;
    const ports = new Set<number>();
    while (ports.size < 15) ports.add(await freePort());
    const started = Date.now();
    const services: ServiceProcess[] = [...ports].map((port) =>
      // A small pool each: fifteen processes share one server's connection limit.
      startService(build.main, { DATABASE_URL: url, PORT: String(port), DATABASE_POOL_SIZE: '3', LOG_LEVEL: 'warn' }),
    );
    const results = await Promise.allSettled(services.map((service) => service.waitForReady(150_000)));
    const seconds = (Date.now() - started) / 1000;
    const afterRelease = (Date.now() - (proxy.releasedAt() ?? started)) / 1000;
    const failed = results.flatMap((result, index) =>
      result.status === 'rejected' ? [`process ${index}: ${String(result.reason?.message ?? result.reason)}`] : [],
    );
    expect(failed).toEqual([]);
    process.stdout.write(
      `15 service processes started at once on a fresh database: all ready ${seconds.toFixed(1)} s after the start, ${afterRelease.toFixed(1)} s after they reached the database together\n`,
    );

    const migrations = await admin(async () => {
      const client = new Client({ connectionString: databaseUrlFor(adminUrl(), name) });
      await client.connect();
      try {
        return (await client.query('select name, count(*)::int as n from schema_migrations group by name')).rows as Array<{ n: number }>;
      } finally {
        await client.end();
      }
    });
    expect(migrations.length).toBeGreaterThan(0);
    expect(migrations.every((row) => row.n === 1)).toBe(true);

    for (const service of services) service.child.kill('SIGTERM');
    const exits = await Promise.all(services.map((service) => service.exited));
    expect(exits.map((exit) => exit.code)).toEqual(services.map(() => 0));
  });
});
