/**
 * Load generator child process: `node load.js <spec.json>`. Runs autocannon
 * (its programmatic API, in this process, apart from the server under test):
 * a warm-up, then the measured run, and writes a LoadResult to spec.out.
 *
 * Latencies are taken from autocannon's per-response event (fractional
 * milliseconds; its own histogram has 1 ms resolution), over every answer,
 * whatever its status.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import autocannon from 'autocannon';
import { LoadResult, quantile, sortedLatencies } from './stats';

export interface LoadSpec {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'PUT';
  /** One path, or several that the requests rotate over (across all connections). */
  readonly paths: readonly string[];
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly expectStatus: number;
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** Requests per second over all connections (autocannon overallRate); unset: as fast as possible. */
  readonly overallRate?: number;
  /**
   * With overallRate: 'paced' sends the requests evenly spaced in time (open
   * loop, at most `connections` in flight, latency counted from the moment a
   * request was due, so queueing in the generator counts too) instead of
   * autocannon, whose rate limit lets every connection send its quota for
   * the second back to back at the start of each second.
   */
  readonly pacing?: 'autocannon' | 'paced';
  /** A header sent with a fresh value on every request (e.g. idempotency-key: each request a new key). */
  readonly uniqueHeader?: string;
  /** Every occurrence of this text in the body is replaced with a fresh value on every request (e.g. usage event ids: each batch new events). */
  readonly uniqueBodyToken?: string;
  /** Where the LoadResult JSON goes. */
  readonly out: string;
}

interface Tally {
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
}

/** Counts across the warm-up and the measured run, so no value repeats within a process. */
let uniqueValues = 0;

function run(spec: LoadSpec, seconds: number, tally: Tally | null): Promise<{ result: autocannon.Result; wallSeconds: number }> {
  let next = 0;
  const setupRequest = (request: autocannon.Request): autocannon.Request => {
    const path = spec.paths[next++ % spec.paths.length];
    const body =
      spec.uniqueBodyToken && spec.body !== undefined ? { body: spec.body.split(spec.uniqueBodyToken).join(`${process.pid}-${++uniqueValues}`) } : {};
    if (!spec.uniqueHeader) return { ...request, path, ...body };
    return { ...request, path, ...body, headers: { ...request.headers, [spec.uniqueHeader]: `${process.pid}-${++uniqueValues}` } };
  };
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
        requests: [
          {
            method: spec.method,
            path: spec.paths[0],
            headers: spec.headers,
            ...(spec.body !== undefined ? { body: spec.body } : {}),
            setupRequest,
          },
        ],
      },
      (error, result) => {
        const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
        if (error) reject(error);
        else resolve({ result, wallSeconds });
      },
    );
    if (tally) {
      instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
        tally.latencies.push(responseTime);
        tally.statuses[String(statusCode)] = (tally.statuses[String(statusCode)] ?? 0) + 1;
      });
      instance.on('reqError', (error: Error & { code?: string }) => {
        if (error?.code === 'UND_ERR_CONNECT_TIMEOUT' || /timed out|timeout/i.test(String(error?.message))) tally.timeouts += 1;
        else tally.errors += 1;
      });
    }
  });
}

/** Open-loop, evenly spaced requests at spec.overallRate with node:http (see LoadSpec.pacing). */
async function paced(spec: LoadSpec, seconds: number, tally: Tally | null): Promise<number> {
  const rate = spec.overallRate ?? 1;
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections });
  const target = new URL(spec.url);
  const total = Math.max(1, Math.floor(seconds * rate));
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  let sent = 0;
  const send = (due: number) => {
    const path = spec.paths[sent % spec.paths.length];
    const done = new Promise<void>((resolve) => {
      const req = httpRequest(
        { host: target.hostname, port: target.port, method: spec.method, path, headers: spec.headers, agent, timeout: 10_000 },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (tally) {
              tally.latencies.push(performance.now() - due);
              const status = String(response.statusCode);
              tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
            }
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('request timed out')));
      req.on('error', (error) => {
        if (tally) {
          if (/timed out/.test(error.message)) tally.timeouts += 1;
          else tally.errors += 1;
        }
        resolve();
      });
      if (spec.body !== undefined) req.end(spec.body);
      else req.end();
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  while (sent < total) {
    const now = performance.now();
    while (sent < total && started + (sent * 1000) / rate <= now) send(started + (sent++ * 1000) / rate);
    if (sent < total) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (sent * 1000) / rate - performance.now())));
  }
  await Promise.all(pending);
  agent.destroy();
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as LoadSpec;
  if (spec.pacing === 'paced' && spec.overallRate) return mainPaced(spec);
  if (spec.warmupSeconds > 0) await run(spec, spec.warmupSeconds, null);
  const tally: Tally = { latencies: [], statuses: {}, errors: 0, timeouts: 0 };
  const { result, wallSeconds } = await run(spec, spec.seconds, tally);
  const sorted = sortedLatencies(tally.latencies);
  const count = sorted.length;
  const ok = Object.entries(tally.statuses)
    .filter(([status]) => status.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  const seconds = result.duration > 0 ? result.duration : wallSeconds;
  const loadResult: LoadResult = {
    seconds,
    count,
    perSecond: Math.round((ok / seconds) * 10) / 10,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    statuses: tally.statuses,
    non2xx: count - ok,
    unexpected: count - (tally.statuses[String(spec.expectStatus)] ?? 0),
    // autocannon counts timeouts among its errors too; report the larger of the two views.
    errors: Math.max(tally.errors, result.errors - result.timeouts),
    timeouts: Math.max(tally.timeouts, result.timeouts),
    tool: 'autocannon',
    notes: {
      autocannonP50: result.latency.p50,
      autocannonP99: result.latency.p99,
      ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
    },
  };
  writeFileSync(spec.out, JSON.stringify(loadResult));
}

async function mainPaced(spec: LoadSpec): Promise<void> {
  if (spec.warmupSeconds > 0) await paced(spec, spec.warmupSeconds, null);
  const tally: Tally = { latencies: [], statuses: {}, errors: 0, timeouts: 0 };
  const seconds = await paced(spec, spec.seconds, tally);
  const sorted = sortedLatencies(tally.latencies);
  const ok = Object.entries(tally.statuses)
    .filter(([status]) => status.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  const result: LoadResult = {
    seconds,
    count: sorted.length,
    perSecond: Math.round((ok / seconds) * 10) / 10,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    statuses: tally.statuses,
    non2xx: sorted.length - ok,
    unexpected: sorted.length - (tally.statuses[String(spec.expectStatus)] ?? 0),
    errors: tally.errors,
    timeouts: tally.timeouts,
    tool: 'node:http, evenly paced',
    notes: { overallRate: spec.overallRate ?? 0 },
  };
  writeFileSync(spec.out, JSON.stringify(result));
}

main().catch((error) => {
  process.stderr.write(`${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
