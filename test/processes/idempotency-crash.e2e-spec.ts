import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { builtServiceOnFreshDatabase, sleep } from './process-support';

/**
 * Issue: "a process killed between the append and the answer leaves a key
 * whose replay returns the committed result". A real service process takes
 * ten writes with keys; its read models are held back (another connection
 * holds every projection's lock, as a stalled projector would), so each
 * write has committed its events and its key but not answered. The process
 * is then killed with SIGKILL. A new process replays every key: the
 * committed response, and no write runs twice.
 */
describe('Idempotency-Key across a kill -9 between the commit and the answer', () => {
  jest.setTimeout(120_000);
  const fixture = builtServiceOnFreshDatabase();
  const start = () => fixture.start({ READ_MODEL_TIMEOUT_MS: '60000' });

  it('replays the committed result of every write whose answer was lost, and runs none twice', async () => {
    const environment = randomUUID();
    const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'crash-test', expiresIn: 3600 });
    const post = (baseUrl: string, key: string, name: string) =>
      fetch(`${baseUrl}/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-environment': environment, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ name }),
      });

    const first = await start();
    const blocker = new Client({ connectionString: fixture.database().url });
    await blocker.connect();
    const sql = async <Row>(text: string, values: unknown[] = []) => (await blocker.query(text, values)).rows as Row[];
    try {
      const projections = await sql<{ name: string }>(`select name from projection_checkpoints`);
      expect(projections.length).toBeGreaterThan(0);
      await blocker.query('begin');
      for (const { name } of projections) await blocker.query(`select pg_advisory_xact_lock(hashtext($1))`, [`projection:${name}`]);

      const writes = Array.from({ length: 10 }, (_, index) => ({ key: randomUUID(), name: `Crash ${index}` }));
      const answers = writes.map(({ key, name }) =>
        post(first.baseUrl, key, name).then(
          (response) => response.status,
          () => 'lost',
        ),
      );
      // Wait until all ten keys are committed (each with its events), while no answer has gone out.
      for (let waited = 0; ; waited += 50) {
        const [row] = await sql<{ n: number }>(`select count(*)::int as n from idempotency_keys where environment_id = $1`, [environment]);
        if (row.n === writes.length) break;
        if (waited > 30_000) throw new Error(`only ${row.n} keys committed`);
        await sleep(50);
      }
      first.service.child.kill('SIGKILL');
      await first.service.exited;
      expect(await Promise.all(answers)).toEqual(writes.map(() => 'lost'));
      await blocker.query('rollback');

      const second = await start();
      for (const { key, name } of writes) {
        const replay = await post(second.baseUrl, key, name);
        expect(replay.status).toBe(201);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.headers.get('etag')).toBe('"1"');
        const body = (await replay.json()) as { id: string; name: string };
        expect(body.name).toBe(name);
        expect(replay.headers.get('location')).toBe(`/products/${body.id}`);
        // The replay names the committed product, readable once the new process's projector has caught up.
        expect(await readableWithin(`${second.baseUrl}/products/${body.id}`, { authorization: `Bearer ${token}`, 'x-environment': environment })).toBe(true);
      }
      const [events] = await sql<{ n: number }>(`select count(*)::int as n from events where environment_id = $1`, [environment]);
      expect(events.n).toBe(writes.length);
      second.service.child.kill('SIGTERM');
      await second.service.exited;
    } finally {
      await blocker.end().catch(() => undefined);
    }
  });
});

async function readableWithin(url: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(50)) {
    if ((await fetch(url, { headers })).status === 200) return true;
  }
  return false;
}
