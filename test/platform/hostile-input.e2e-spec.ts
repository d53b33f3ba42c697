import { randomUUID } from 'node:crypto';
import { startTestApp, TestApp } from '@billing/testing';

/**
 * A generated attack on every operation of the served OpenAPI document: for
 * each operation, a plausible body built from its schema is mutated member by
 * member (wrong types, missing and extra members, extreme numbers, control
 * and invalid Unicode, deep nesting), sent with odd query strings, hostile
 * path parameters, wrong content types, malformed JSON and bad credentials.
 * Every answer must be below 500, and every error must be a problem document.
 * The sequence is deterministic (a seeded generator), so a failure replays.
 */

/**
 * How many requests: `npm test` sends a sample drawn evenly from every
 * operation's attempts; `npm run test:hostile` sends the full sweep
 * (HOSTILE_REQUESTS=10000). The test's time budget follows from the count:
 * a request's share on a busy machine (10 000 took over 300 s at load 10),
 * plus the app's start and the seeding.
 */
const REQUESTS = requestCount(process.env.HOSTILE_REQUESTS);
jest.setTimeout(60_000 + REQUESTS * 100);
const CONCURRENCY = 16;

function requestCount(given: string | undefined): number {
  if (given === undefined) return 1_000;
  if (!/^[1-9]\d*$/.test(given)) throw new Error(`HOSTILE_REQUESTS must be a positive integer, not ${given}`);
  return Number(given);
}

/** `wanted` of the items, spread evenly over the list (so every operation keeps its share). */
function evenly<T>(items: readonly T[], wanted: number): T[] {
  if (wanted >= items.length) return [...items];
  return items.filter((_, index) => Math.floor((index * wanted) / items.length) !== Math.floor(((index + 1) * wanted) / items.length));
}

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly bodySchema: Schema | null;
  readonly queryNames: readonly string[];
  /** A page for browsers (the analytics page): it documents its 4xx answers as text/html, not problem details. */
  readonly htmlErrors: boolean;
}

type Schema = Record<string, any>;

interface Attempt {
  readonly label: string;
  readonly htmlErrors: boolean;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53,
  2 ** 63,
  5e-324,
  '',
  'x',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '\u0007\u001b[31m',
  '\u202eevil',
  '😀𝄞',
  'x'.repeat(5000),
  '2026-02-30',
  '9999-99-99T99:99:99Z',
  '00000000-0000-0000-0000-000000000000',
  [],
  [[]],
  [null],
  {},
  { __proto__: { polluted: true } },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  { constructor: { prototype: { polluted: true } } },
  nest(60),
];

const HOSTILE_PATH_SEGMENTS = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  '%',
  '%2e%2e%2f',
  '..',
  'x'.repeat(120),
  'x'.repeat(600),
  '%E2%80%AE',
  '0',
  '-1',
  'null',
  '%20',
  randomUUID().toUpperCase(),
];

const ODD_QUERIES = [
  'unknown=1',
  'limit=0',
  'limit=-1',
  'limit=1e3',
  'limit=99999999999999999999',
  'limit=abc',
  'limit=1&limit=2',
  'limit[]=1',
  'pageToken=',
  'pageToken=%00',
  'pageToken=eyJjcmVhdGVkQXQiOiJub3QtYS1kYXRlIiwiaWQiOiJ4In0',
  'pageToken=eyJwIjoiMjAyNi0wMi0zMCJ9',
  'pageToken=eyJzZXEiOiItMSJ9',
  'pageToken=' + 'A'.repeat(3000),
  '__proto__=x',
  'constructor[prototype][x]=1',
  'status=%00',
  'status=%ED%A0%80',
  'customerId=not-a-uuid',
  'archived=maybe',
  '=',
  '&&&',
  '%',
];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/json-patch+json',
  '',
];

const MALFORMED_JSON = ['{', '{"a":1', '[1,2', '{"a":1}}', '\ufeff{}', 'nul', '{"a":01}', '{"a":1e99999}', '{"a":"\\x00"}', '"\\ud800"', '1'.repeat(5000)];

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** mulberry32: a small seeded generator, so the same attempts run every time. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const operation = item[method];
      if (!operation) continue;
      const content = operation.requestBody?.content?.['application/json'];
      operations.push({
        method: method.toUpperCase(),
        path,
        bodySchema: content?.schema ? resolve(document, content.schema) : null,
        queryNames: (operation.parameters ?? [])
          .map((p: any) => resolve(document, p))
          .filter((p: any) => p.in === 'query')
          .map((p: any) => p.name),
        htmlErrors: Object.entries<any>(operation.responses ?? {}).some(([status, response]) => status.startsWith('4') && response?.content?.['text/html']),
      });
    }
  }
  return operations;
}

function resolve(document: any, schema: Schema): Schema {
  let current = schema;
  while (current?.$ref) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, key: string) => node[key], document);
  }
  return current;
}

/** A plausible instance of a schema: the starting point every mutation departs from. */
function sample(document: any, raw: Schema, depth = 0): unknown {
  const schema = resolve(document, raw);
  if (!schema || depth > 8) return null;
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: Schema) => sample(document, s, depth + 1)));
  if (schema.oneOf || schema.anyOf) return sample(document, (schema.oneOf ?? schema.anyOf)[0], depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) out[name] = sample(document, property, depth + 1);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object' && Object.keys(out).length === 0) {
        out.eur = sample(document, schema.additionalProperties, depth + 1);
      }
      return out;
    }
    case 'array':
      return [sample(document, schema.items ?? {}, depth + 1)];
    case 'integer':
      return 1;
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'date') return '2026-01-15';
      if (schema.format === 'date-time') return '2026-01-15T10:00:00Z';
      if (schema.format === 'uri') return 'https://hooks.invalid/x';
      return 'sample';
    default:
      return 'sample';
  }
}

/** Every member of a value, as a path of keys, parents before children. */
function members(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...members(child, [...prefix, key])]);
}

function withMember(value: unknown, path: (string | number)[], replacement: unknown | typeof REMOVE): unknown {
  const copy = structuredClone(value) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1];
  if (replacement === REMOVE) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else {
    node[last] = replacement;
  }
  return copy;
}

const REMOVE = Symbol('remove');

function attemptsFor(document: any, operation: Operation, ids: Record<string, string>, t: TestApp, random: () => number): Attempt[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const realPath = operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) => ids[name] ?? ids.id);
  const headers = { authorization: `Bearer ${t.token()}`, 'x-environment': t.environmentId, 'content-type': 'application/json' };
  const attempts: Attempt[] = [];
  const add = (label: string, init: Partial<Attempt>) =>
    attempts.push({
      label: `${operation.method} ${operation.path}: ${label}`,
      htmlErrors: operation.htmlErrors,
      method: operation.method,
      path: realPath,
      headers,
      ...init,
    });

  const valid = operation.bodySchema ? sample(document, operation.bodySchema) : undefined;
  const send = (value: unknown) => (operation.bodySchema || operation.method !== 'GET' ? JSON.stringify(value) : undefined);

  if (operation.bodySchema) {
    add('plausible body', { body: send(valid) });
    for (const path of members(valid)) {
      for (const hostile of HOSTILE_VALUES) add(`${path.join('/')} = ${describe(hostile)}`, { body: send(withMember(valid, path, hostile)) });
      add(`${path.join('/')} removed`, { body: send(withMember(valid, path, REMOVE)) });
    }
    for (const hostile of HOSTILE_VALUES) {
      add(`body = ${describe(hostile)}`, { body: send(hostile) });
      add(`extra member = ${describe(hostile)}`, {
        body: send({ ...(valid as object), [pick(['extra', '__proto__', 'constructor', '\u0000', ''])]: hostile }),
      });
    }
    for (const text of MALFORMED_JSON) add(`malformed ${text.slice(0, 12)}`, { body: text });
    for (const type of CONTENT_TYPES) add(`content-type ${type}`, { body: send(valid), headers: { ...headers, 'content-type': type } });
    add('deep nesting', { body: `${'['.repeat(5000)}${']'.repeat(5000)}` });
    add('deep objects', { body: JSON.stringify(nest(2000)) });
  }
  for (const query of ODD_QUERIES) add(`?${query}`, { path: `${realPath}?${query}`, body: send(valid) });
  for (const name of operation.queryNames) {
    for (const value of ['%00', '%ED%A0%80', '-1', '1e400', 'x'.repeat(300), '[]', '{}', '%27%20or%201%3D1--']) {
      add(`?${name}=${value.slice(0, 10)}`, { path: `${realPath}?${name}=${value}`, body: send(valid) });
    }
  }
  if (operation.path.includes('{')) {
    for (const segment of HOSTILE_PATH_SEGMENTS) {
      add(`path ${segment.slice(0, 10)}`, { path: operation.path.replace(/\{[^}]+\}/g, segment), body: send(valid) });
    }
  }
  const credentialFailures: Record<string, Record<string, string>> = {
    'no token': { 'x-environment': t.environmentId },
    'forged token': { authorization: `Bearer ${t.token([t.environmentId], {}, 'forged')}`, 'x-environment': t.environmentId },
    'another environment': { authorization: `Bearer ${t.token([randomUUID()])}`, 'x-environment': t.environmentId },
    'other environment header': { authorization: `Bearer ${t.token()}`, 'x-environment': randomUUID() },
    'no environment header': { authorization: `Bearer ${t.token()}` },
    'bad environment header': { authorization: `Bearer ${t.token()}`, 'x-environment': '\u00ff' },
    'bad if-match': { ...headers, 'if-match': '"\u00ff' },
    'huge if-match': { ...headers, 'if-match': `"${'9'.repeat(400)}"` },
  };
  for (const [label, credentials] of Object.entries(credentialFailures)) {
    add(label, { headers: { 'content-type': 'application/json', ...credentials }, body: send(valid) });
  }
  return attempts;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}

it(`answers ${REQUESTS} generated hostile requests over every operation with 4xx problems, never a 5xx`, async () => {
  const t = await startTestApp();
  try {
    const document = (await t.request('GET', '/openapi.json', { token: null })).body;
    const ids = await seedResources(t);
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(20);

    const random = seeded(20261122);
    // The first round has every operation: a sample is drawn evenly from it; a sweep larger than it is topped up
    // from reshuffled rounds (drawn evenly too), so the count is exactly the one asked for.
    let attempts = evenly(
      operations.flatMap((operation) => attemptsFor(document, operation, ids, t, random)),
      REQUESTS,
    );
    for (let round = 1; attempts.length < REQUESTS; round++) {
      const extra = operations.flatMap((operation) => attemptsFor(document, operation, ids, t, seeded(round)));
      attempts = attempts.concat(evenly(extra, REQUESTS - attempts.length));
    }
    expect(new Set(attempts.map((attempt) => attempt.label.slice(0, attempt.label.indexOf(': ')))).size).toBe(operations.length);

    const histogram = new Map<number, number>();
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < attempts.length) {
        const attempt = attempts[next++];
        const response = await fetch(`${t.baseUrl}${attempt.path}`, {
          method: attempt.method,
          headers: attempt.headers,
          body: attempt.method === 'GET' || attempt.method === 'DELETE' ? undefined : attempt.body,
        });
        const text = await response.text();
        histogram.set(response.status, (histogram.get(response.status) ?? 0) + 1);
        const failure = judge(response.status, response.headers.get('content-type'), text, attempt.htmlErrors);
        if (failure && failures.length < 25) failures.push(`${attempt.label} → ${response.status}: ${failure}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const summary = [...histogram.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`);
    console.log(`hostile-input: ${attempts.length} requests over ${operations.length} operations; statuses ${summary.join(', ')}`);
    expect(failures).toEqual([]);
    expect(attempts.length).toBe(REQUESTS);
    expect((await t.request('GET', '/health/ready', { token: null })).status).toBe(200);
  } finally {
    await t.close();
  }
});

function judge(status: number, contentType: string | null, text: string, htmlErrors: boolean): string | null {
  if (status >= 500) return `server error ${text.slice(0, 200)}`;
  if (status < 400) return null;
  // A documented HTML error page (a browser's page): what it must be is an HTML document, never a stack or JSON.
  if (htmlErrors && contentType?.startsWith('text/html')) return /^<!doctype html>/i.test(text.trimStart()) ? null : `not an HTML page: ${text.slice(0, 200)}`;
  if (!contentType?.startsWith('application/problem+json')) return `error with content type ${contentType}`;
  try {
    const problem = JSON.parse(text);
    if (problem.status !== status || typeof problem.type !== 'string' || typeof problem.title !== 'string') return `not a problem: ${text.slice(0, 200)}`;
  } catch {
    return `unparseable problem body ${text.slice(0, 200)}`;
  }
  return null;
}

/** Real resources, so that mutated requests reach handlers and deciders, not only 404s. */
async function seedResources(t: TestApp): Promise<Record<string, string>> {
  const customer = { id: randomUUID(), handle: 'C-1', name: 'Hostile Oy' };
  const invoice = await t.request('POST', '/invoices', { body: { customer, currency: 'EUR', items: [{ quantity: 1, unitAmount: 1000 }] } });
  const booked = await t.request('POST', '/invoices', { body: { customer, currency: 'EUR', items: [{ quantity: 1, unitAmount: 500 }] } });
  await t.request('PUT', `/invoices/${booked.body.id}/book`, { body: {} });
  const product = await t.request('POST', '/products', { body: { name: 'Hostile product' } });
  const price = await t.request('POST', '/prices', {
    body: { name: 'p', productId: product.body.id, priceModel: 'fee', purchase: 'one_time', pricing: { eur: { unitAmount: 100 } } },
  });
  const taxCode = await t.request('POST', '/tax-codes', { body: { code: 'VAT24', rate: 0.24, taxable: true } });
  const webhook = await t.request('PUT', '/webhooks/subscribe', { body: { url: 'https://hooks.invalid/hostile' } });
  for (const [name, response] of Object.entries({ invoice, booked, product, price, taxCode, webhook })) {
    if (response.status >= 300) throw new Error(`seeding ${name} failed: ${response.status} ${response.text}`);
  }
  return {
    id: invoice.body.id,
    invoiceId: invoice.body.id,
    priceId: price.body.id,
    productId: product.body.id,
    code: taxCode.body.code,
    taxCode: taxCode.body.code,
    webhookId: webhook.body.id,
    subscriptionId: webhook.body.id,
    deliveryId: randomUUID(),
  };
}
