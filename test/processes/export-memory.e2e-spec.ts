import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sign } from 'jsonwebtoken';
import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@billing/testing';
import { buildService, freePort, killLeftoverServices, ServiceProcess, startService } from './process-support';

const EVENTS = 100_000;
const DESCRIPTION_BYTES = 1500;
const INSERT_CHUNK = 5_000;
/** The service's old generation is capped below the export's size: holding the export would end it with an out-of-memory. */
const HEAP_CAP_MB = 96;
const SECRET = 'export-memory-test';

/**
 * GET /events/export of 100 000 events (about 180 MB of NDJSON) in bounded
 * memory. The events go in with generate_series statements (each event still
 * chained by the commit trigger). The service runs as its own process
 * (API only, no worker) with its heap capped below the export's size, and
 * its resident memory is sampled from /proc while a client reads the stream,
 * counting and dropping every line: every event arrives once and in order,
 * and the resident memory grows by a fraction of what was streamed.
 */
describe('GET /events/export in bounded memory', () => {
  let build: ReturnType<typeof buildService>;
  let database: TestDatabase;
  let service: ServiceProcess;

  beforeAll(async () => {
    build = buildService();
    database = await createTestDatabase();
    service = startService(build.main, {
      DATABASE_URL: database.url,
      PORT: String(await freePort()),
      ROLES: 'api',
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'error',
      NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}`,
    });
    await service.waitForReady();
  }, 120_000);
  afterAll(async () => {
    killLeftoverServices();
    await database?.drop();
    build?.remove();
  });

  it(`streams ${EVENTS} events, every one once and in order, in a fraction of their size`, async () => {
    const environment = randomUUID();
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      // In transactions of 5 000: one open for the whole insert would hold back the snapshot horizon of the whole
      // Postgres server (every other test database's projections wait for it) for its duration.
      for (let first = 1; first <= EVENTS; first += INSERT_CHUNK) {
        await client.query(
          `insert into events (event_id, environment_id, stream_type, stream_id, stream_version, event_type, schema_version, data, metadata, occurred_at)
           select gen_random_uuid(), $1, 'bulk-test', gen_random_uuid(), 1, 'BulkRecorded', 1,
                  jsonb_build_object('n', i, 'description', repeat('x', ${DESCRIPTION_BYTES})),
                  jsonb_build_object('actor', 'bulk', 'requestId', null, 'correlationId', 'bulk-' || i, 'causationId', null),
                  timestamptz '2026-01-01T00:00:00Z' + i * interval '1 millisecond'
             from generate_series($2::int, $3::int) as i`,
          [environment, first, Math.min(first + INSERT_CHUNK - 1, EVENTS)],
        );
      }
      const { rows } = await client.query(`select count(*)::int as chained from event_chain where environment_id = $1`, [environment]);
      expect(rows[0].chained).toBe(EVENTS);
    } finally {
      await client.end();
    }

    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))![1]) * 1024;
    const baseline = rss();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
    let bytes = 0;
    let lines = 0;
    let outOfOrder = 0;
    let tail = '';
    try {
      const token = sign({ environments: [environment] }, SECRET, { algorithm: 'HS256', subject: 'auditor', expiresIn: 3600 });
      const response = await fetch(`http://127.0.0.1:${service.port}/events/export`, {
        headers: { authorization: `Bearer ${token}`, 'x-environment': environment },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/x-ndjson');
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        const parts = (tail + decoder.decode(chunk, { stream: true })).split('\n');
        tail = parts.pop() ?? '';
        for (const part of parts) {
          const { position, data } = JSON.parse(part) as { position: number; data: { n: number } };
          lines += 1;
          if (position !== lines || data.n !== lines) outOfOrder += 1;
        }
      }
    } finally {
      clearInterval(sampler);
    }
    expect(tail).toBe('');
    expect(lines).toBe(EVENTS);
    expect(outOfOrder).toBe(0);
    expect(bytes).toBeGreaterThan(EVENTS * DESCRIPTION_BYTES);
    const growth = peak - baseline;
    process.stdout.write(
      `export: ${lines} events, ${(bytes / 1e6).toFixed(1)} MB streamed; service RSS ${(baseline / 1e6).toFixed(0)} MB before, peak growth ${(growth / 1e6).toFixed(1)} MB\n`,
    );
    expect(growth).toBeLessThan(bytes / 2);
    // Still serving.
    expect((await fetch(`http://127.0.0.1:${service.port}/health/live`)).status).toBe(200);
  }, 300_000);
});
