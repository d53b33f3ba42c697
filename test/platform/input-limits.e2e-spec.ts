import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { JsonLogger, MAX_LOG_LINE, MAX_OBJECT_MEMBERS, MAX_REPORTED_ERRORS } from '@billing/platform';
import { eventually, expectProblem, startTestApp, TestApp } from '@billing/testing';

/**
 * Issue 41 #17 and #18: a body's member names and member count are the
 * client's, so neither may reach a pattern, a log line or a per-member cost
 * unbounded. Every operation with a JSON body is tried, so a new route is
 * covered without a new test.
 */
describe('input limits (issue 41 #17, #18)', () => {
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    t = await startTestApp({ logger: new JsonLogger('info', stream) });
  });
  afterAll(() => t.close());

  const customer = () => ({ id: randomUUID(), handle: 'c', name: 'n' });

  it('an unknown member of 100 000 characters is a 422 at its pointer on every body route, and the log lines stay under the cap', async () => {
    const name = `k${'k'.repeat(100_000)}`;
    const document = (await t.request('GET', '/openapi.json', { token: null })).body;
    const operations = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
      ['post', 'put', 'patch']
        .filter((method) => item[method]?.requestBody?.content?.['application/json'])
        .map((method) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, randomUUID()) })),
    );
    expect(operations.length).toBeGreaterThan(20);
    const answers = [];
    for (const { method, path } of operations) {
      const answer = await t.request(method, path, { body: { [name]: 1 } });
      answers.push(answer);
      expect([method, path, answer.status < 500, answer.headers.get('content-type')]).toEqual([
        method,
        path,
        true,
        expect.stringContaining('application/problem+json'),
      ]);
    }
    // Routes that read a body DTO point at the member; the others answer before reading it (an id of no resource, no input).
    const pointed = answers.filter((answer) => answer.status === 422 && answer.body.errors?.some((error: { pointer: string }) => error.pointer === `/${name}`));
    expect(pointed.length).toBeGreaterThan(operations.length / 2);
    const requestIds = new Set(answers.map((answer) => answer.headers.get('x-request-id')));
    await eventually(
      async () => lines.filter((line) => requestIds.has(JSON.parse(line).requestId)).length,
      (logged) => logged >= requestIds.size,
      { what: 'a request line per answer' },
    );
    expect(lines.filter((line) => line.length > MAX_LOG_LINE || line.includes(name))).toEqual([]);
  });

  it('a body with 60 000 unknown members is refused with at most MAX_REPORTED_ERRORS errors, wherever the members are', async () => {
    const unknown = (count: number, prefix: string) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`${prefix}${index}`, 1]));
    const flat = { customer: customer(), currency: 'EUR', items: [{ quantity: 1, unitAmount: 100 }], ...unknown(60_000, 'u') };
    expectProblem(await t.request('POST', '/invoices', { body: flat }), 422, 'validation-failed', '/');
    const spread = {
      customer: customer(),
      currency: 'EUR',
      items: Array.from({ length: 60 }, (_, line) => ({ quantity: 1, unitAmount: 100, ...unknown(MAX_OBJECT_MEMBERS - 2, `l${line}u`) })),
    };
    const refused = await t.request('POST', '/invoices', { body: spread });
    expectProblem(refused, 422, 'validation-failed');
    expect(refused.body.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(refused.body.errors[0].pointer).toMatch(/^\/items\/\d+\/l\d+u\d+$/);
    const metadata = { customer: { ...customer(), metadata: unknown(60_000, 'm') }, currency: 'EUR', items: [] };
    expectProblem(await t.request('POST', '/invoices', { body: metadata }), 422, 'validation-failed', '/customer/metadata');
  });
});
