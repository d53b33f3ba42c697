import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { MIN_GROUP } from '@billing/event-store';
import { DEVELOPMENT_JWT_SECRET } from '@billing/platform';
import { builtServiceOnFreshDatabase, sleep } from './process-support';

/**
 * Nothing acknowledged is lost, with group commit: sixteen clients create
 * invoices as fast as a real service process answers, appends that arrive
 * together are written by one statement in one transaction, and the process
 * is killed with SIGKILL in the middle of it. Every invoice answered 201 is
 * in the log, every stream's version is its last event's (no group left a
 * claim without its events), and a new process serves each of them.
 */
describe('POST /invoices under load across a kill -9', () => {
  jest.setTimeout(120_000);
  const fixture = builtServiceOnFreshDatabase();
  const start = () => fixture.start();

  it('keeps every invoice it answered 201 for, each written whole', async () => {
    const environment = randomUUID();
    const token = sign({ environments: [environment] }, DEVELOPMENT_JWT_SECRET, { algorithm: 'HS256', subject: 'crash-test', expiresIn: 3600 });
    const headers = { authorization: `Bearer ${token}`, 'x-environment': environment };
    const body = JSON.stringify({
      customer: { id: randomUUID(), handle: 'C-1', name: 'Crash Oy' },
      currency: 'EUR',
      items: [{ title: 'A', quantity: 2, unitAmount: 1999 }],
    });

    const first = await start();
    const acknowledged: string[] = [];
    const refused: number[] = [];
    let killed = false;
    const writers = Array.from({ length: 16 }, async () => {
      while (!killed) {
        try {
          const response = await fetch(`${first.baseUrl}/invoices`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
          if (response.status === 201) acknowledged.push(((await response.json()) as { id: string }).id);
          else refused.push(response.status);
        } catch {
          return; // the answer was lost with the process
        }
      }
    });
    for (let waited = 0; acknowledged.length < 300 && refused.length === 0 && waited < 60_000; waited += 20) await sleep(20);
    killed = true;
    first.service.child.kill('SIGKILL');
    await first.service.exited;
    await Promise.all(writers);
    expect(refused).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(300);

    const sql = new Client({ connectionString: fixture.database().url });
    await sql.connect();
    try {
      const created = new Set(
        (await sql.query(`select stream_id from events where environment_id = $1 and event_type = 'InvoiceCreated'`, [environment])).rows.map(
          (row: { stream_id: string }) => row.stream_id,
        ),
      );
      expect(acknowledged.filter((id) => !created.has(id))).toEqual([]);
      const torn = await sql.query(
        `select s.stream_id, s.version, max(e.stream_version) as last from streams s
           left join events e on e.environment_id = s.environment_id and e.stream_type = s.stream_type and e.stream_id = s.stream_id
          where s.environment_id = $1 group by s.stream_id, s.version having s.version is distinct from max(e.stream_version)`,
        [environment],
      );
      expect(torn.rows).toEqual([]);
      // The load was concurrent enough for appends to be grouped: some transaction holds several invoices.
      const [grouped] = (
        await sql.query(`select max(n)::int as n from (select count(*) as n from events where environment_id = $1 group by transaction_id) t`, [environment])
      ).rows;
      expect(grouped.n).toBeGreaterThanOrEqual(MIN_GROUP);
    } finally {
      await sql.end();
    }

    const second = await start();
    for (const id of acknowledged.slice(-50)) {
      let status = 0;
      for (let waited = 0; waited < 10_000 && status !== 200; waited += 50) {
        status = (await fetch(`${second.baseUrl}/invoices/${id}`, { headers })).status;
        if (status !== 200) await sleep(50);
      }
      expect(status).toBe(200);
    }
    second.service.child.kill('SIGTERM');
    await second.service.exited;
  });
});
