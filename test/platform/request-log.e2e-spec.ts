import { PassThrough } from 'node:stream';
import { JsonLogger } from '@billing/platform';
import { eventually, startTestApp, TestApp } from '@billing/testing';

/**
 * At LOG_LEVEL info every answered request is logged once, after its answer,
 * with the request id the answer carries (the edge's onResponse hook).
 */
describe('The request log', () => {
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    t = await startTestApp({ logger: new JsonLogger('info', stream) });
  });
  afterAll(() => t.close());

  it('logs each request once with its method, status and duration, under the id of its x-request-id header', async () => {
    const answers = [
      await t.request('GET', '/invoices'),
      await t.request('GET', '/invoices/00000000-0000-4000-8000-000000000000'),
      await t.request('GET', '/invoices', { token: null }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401]);
    // onResponse runs once the answer is on the wire: wait for its lines, not for a guess at how long they take.
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    const requestLines = async () => lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
    const logged = await eventually(requestLines, (entries) => ids.every((id) => entries.some((entry) => entry.requestId === id)), {
      what: 'a request line per answer',
    });
    for (const answer of answers) {
      expect(logged.filter((entry) => entry.requestId === answer.headers.get('x-request-id'))).toEqual([
        expect.objectContaining({ level: 'info', method: 'GET', status: answer.status, durationMs: expect.any(Number) }),
      ]);
    }
  });
});
