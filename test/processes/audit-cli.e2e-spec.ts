import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sign } from 'jsonwebtoken';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { eventually, startTestApp, TestApp, TestResponse } from '@billing/testing';
import { buildService, freePort, killLeftoverServices, reachableTempDir, startService, stopLeftoverPostmaster } from './process-support';

const run = promisify(execFile);

/**
 * `npm run audit:verify` and `npm run replay` as built scripts against a
 * database populated through the API (every context's read models): both
 * clean at first; then a changed event is named by verify, and a changed read
 * model row is shown by replay.
 */
describe('npm run audit:verify and npm run replay', () => {
  let t: TestApp;
  let build: ReturnType<typeof buildService>;

  beforeAll(async () => {
    build = buildService();
    t = await startTestApp();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    build?.remove();
  });

  async function script(
    name: string,
    args: string[] = [],
    env: Record<string, string | undefined> = { DATABASE_URL: t.database.url },
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [join(build.folder, 'apps', 'api', 'src', `${name}.js`), ...args], {
        env: { ...process.env, DATABASE_URL: undefined, JWT_SECRET: 'cli-test', LOG_LEVEL: 'error', NODE_ENV: 'test', ...env },
        maxBuffer: 16 * 1024 * 1024,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  async function populate(): Promise<string> {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const ok = async (method: string, path: string, body: unknown, expected: number): Promise<TestResponse> => {
      const response = await t.request(method, path, { ...options, body });
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    await ok('POST', '/tax-codes', { code: 'VAT24', rate: 0.24, taxable: true }, 201);
    const productId = (await ok('POST', '/products', { name: 'Plans' }, 201)).body.id;
    const priceId = (
      await ok(
        'POST',
        '/prices',
        { productId, name: 'Pro', priceModel: 'fee', purchase: 'recurring', termCount: 1, termUnit: 'month', pricing: { eur: { unitAmount: 1500 } } },
        201,
      )
    ).body.id;
    await ok('PUT', `/prices/${priceId}`, { name: 'Pro plus' }, 200);
    await ok(
      'POST',
      '/subscriptions',
      { customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' }, currency: 'EUR', term: { start: '2026-03-01', end: null }, items: [{ priceId }] },
      201,
    );
    await ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: `sk_sandbox_${randomUUID().replace(/-/g, '')}` } }, 200);
    const invoice = await ok(
      'POST',
      '/invoices',
      {
        customer: { id: randomUUID(), handle: 'C-1', name: 'Acme' },
        currency: 'EUR',
        items: [{ title: 'Plan', quantity: 1, unitAmount: 5000, taxCode: 'VAT24' }],
      },
      201,
    );
    await ok('PUT', `/invoices/${invoice.body.id}/book`, {}, 200);
    await ok('POST', '/payments', { invoiceId: invoice.body.id, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201);
    await ok('PUT', '/webhooks/subscribe', { url: 'https://hooks.example.com/audit' }, 200);
    return id;
  }

  it('clean: verify ok for every environment, replay equal for every read model table; tampered: each names what changed', async () => {
    const first = await populate();
    const second = await populate();

    const verified = await script('audit-verify');
    expect(verified.code).toBe(0);
    const lines = verified.stdout.trim().split('\n').sort();
    expect(lines).toEqual([first, second].sort().map((id) => expect.stringMatching(new RegExp(`^ok ${id} position \\d+ hash [0-9a-f]{64}$`))));
    expect(verified.stderr).toMatch(/verified \d+ events in 2 environment\(s\) in [\d.]+ s: \d+ events\/s/);

    const replayed = await script('replay');
    expect(replayed.stdout).not.toContain('DIFFERENT');
    const tables = replayed.stdout.trim().split('\n');
    expect(tables.pop()).toBe('IDENTICAL');
    expect(tables).toEqual(
      expect.arrayContaining([
        'catalog.read-model prices: equal',
        'catalog.read-model products: equal',
        'invoicing.read-model invoices: equal',
        'invoicing.read-model tax_codes: equal',
        expect.stringMatching(/^payments\.\S+ payments: equal$/),
        expect.stringMatching(/^subscriptions\.\S+ subscriptions: equal$/),
        expect.stringMatching(/^webhooks\.\S+ webhook_subscriptions: equal$/),
      ]),
    );
    expect(tables.every((line) => line.endsWith(': equal'))).toBe(true);
    expect(replayed.code).toBe(0);
    expect(replayed.stderr).toMatch(/replayed \d+ events into \d+ read models in [\d.]+ s: \d+ events\/s/);
    // The shadow schema is gone again.
    expect(await t.dataSource.query(`select 1 from information_schema.schemata where schema_name = 'audit_replay'`)).toEqual([]);

    // A read model row changed behind the projection's back.
    const [product] = await t.dataSource.query(`select id from products where environment_id = $1`, [first]);
    await t.dataSource.query(`update products set view = jsonb_set(view, '{name}', '"Tampered"') where id = $1`, [product.id]);
    const different = await script('replay');
    expect(different.code).toBe(1);
    expect(different.stdout).toContain('catalog.read-model products: DIFFERENT (1 live rows not replayed, 1 replayed rows not live)');
    expect(different.stdout).toMatch(/live only: +\{.*"Tampered"/);
    expect(different.stdout).toMatch(/replay only: \{.*"Plans"/);
    expect(different.stdout).toContain('catalog.read-model prices: equal');
    expect(different.stdout).toContain(`\nDIFFERENT: first differing row products (environment_id=${first}, id=${product.id}): {`);

    // One event's data changed by a superuser past the guard.
    const [event] = await t.dataSource.query(`select event_id from events where environment_id = $1 and event_type = 'PriceUpdated'`, [second]);
    await t.dataSource.query(`alter table events disable trigger events_append_only`);
    try {
      await t.dataSource.query(`update events set data = jsonb_set(data, '{name}', '"Free"') where event_id = $1`, [event.event_id]);
    } finally {
      await t.dataSource.query(`alter table events enable trigger events_append_only`);
    }
    const broken = await script('audit-verify');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`ok ${first} position`);
    expect(broken.stdout).toMatch(new RegExp(`MISMATCH ${second} event ${event.event_id} position 4 \\(global position \\d+\\) differs content`));
    const one = await script('audit-verify', ['--environment', first]);
    expect(one.code).toBe(0);
    expect(one.stdout.trim().split('\n')).toHaveLength(1);
    expect((await script('audit-verify', ['--environment', 'nope'])).code).toBe(2);
    // Six child processes (verify and replay, each starting its own app) over every read model: ~20 s on a quiet machine.
  }, 90_000);

  it('issue 41 #2: a replay interrupted by a signal drops its shadow schema and exits 128 + the signal', async () => {
    await populate();
    // The live read models' locks held: the replay rebuilds its shadow tables, then waits to compare the first one.
    const holder = t.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      const names = (await holder.query(`select name from projection_checkpoints`)) as { name: string }[];
      for (const { name } of names) await holder.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);
      const child = spawn(process.execPath, [join(build.folder, 'apps', 'api', 'src', 'replay.js')], {
        env: { ...process.env, DATABASE_URL: t.database.url, JWT_SECRET: 'cli-test', LOG_LEVEL: 'error', NODE_ENV: 'test' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const waitingForLock = async () =>
        (
          await t.dataSource.query(
            `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
          )
        )[0].n as number;
      await eventually(waitingForLock, (n) => n > 0, { timeoutMs: 60_000, what: 'the replay waiting for a live read model' });
      expect(await t.dataSource.query(`select 1 as present from information_schema.schemata where schema_name = 'audit_replay'`)).toEqual([{ present: 1 }]);
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(stderr).toContain('replay: SIGTERM: dropping the shadow schema');
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    expect(await t.dataSource.query(`select 1 from information_schema.schemata where schema_name = 'audit_replay'`)).toEqual([]);
  }, 90_000);

  it('issue 20 #7 and #21: beside the service running on DATA_DIR, both use its Postgres; results alone on stdout, logs on stderr; a failure is one line', async () => {
    const dataDir = reachableTempDir('billing-audit-cli-');
    const port = await freePort();
    const service = startService(build.main, { DATA_DIR: dataDir, PORT: String(port) });
    try {
      await service.waitForReady();
      const environment = randomUUID();
      const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'billing-test', expiresIn: 3600 });
      const created = await fetch(`http://127.0.0.1:${port}/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-environment': environment, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Plans' }),
      });
      expect(created.status).toBe(201);
      // LOG_LEVEL=info: the commands do log, and none of it may reach stdout.
      const beside = { DATA_DIR: dataDir, LOG_LEVEL: 'info', JWT_SECRET: undefined, NODE_ENV: undefined };
      const verified = await script('audit-verify', [], beside);
      expect([verified.code, verified.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^ok ${environment} position 1 hash [0-9a-f]{64}\n$`))]);
      expect(verified.stderr).toContain(`in use by another running service process (pid ${service.pid}`);
      expect(verified.stderr).toContain(`"databaseUrl":"postgres://postgres:postgres@127.0.0.1:`);
      const replayed = await script('replay', [], beside);
      expect(replayed.code).toBe(0);
      const lines = replayed.stdout.trim().split('\n');
      expect(lines.pop()).toBe('IDENTICAL');
      for (const line of lines) expect(line).toMatch(/^\S+ \S+: equal$/);
      expect(replayed.stdout).toContain('catalog.read-model products: equal');
      expect(replayed.stderr).toMatch(/^\{"level":"info"/m);

      // What the service cannot share: a folder whose Postgres nobody can reach is one line, what is wrong and what to do.
      const unreachable = await script('audit-verify', [], { DATABASE_URL: 'postgres://x@127.0.0.1:1/x' });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toBe('');
      expect(unreachable.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^audit:verify: cannot connect to the Postgres of DATABASE_URL .*; nothing accepts connections at 127.0.0.1:1: start Postgres there/,
        ),
      ]);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
      killLeftoverServices();
      await stopLeftoverPostmaster(join(dataDir, 'postgres'));
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
