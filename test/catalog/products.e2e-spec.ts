import { randomUUID } from 'node:crypto';
import { EventStore, ProjectionRunner } from '@billing/event-store';
import { NotificationCatalogue } from '@billing/platform';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { createPrice, expectPointers, monthlyFee } from './catalog-helpers';

const T0 = '2026-01-15T10:00:00.000Z';

describe('Products over HTTP, and the catalog read model', () => {
  let t: TestApp;
  const clock = new FakeClock(new Date(T0));
  const otherEnvironment = randomUUID();
  let otherToken: string;

  beforeAll(async () => {
    t = await startTestApp({ clock });
    otherToken = t.token([otherEnvironment]);
  });
  afterAll(() => t.close());

  const createProduct = async (body: unknown, options: { environment?: string; token?: string } = {}) => {
    const response = await t.request('POST', '/products', { body, ...options });
    expect(response.status).toBe(201);
    return response.body;
  };

  describe('POST /products', () => {
    it('201 with the Product, ETag and Location; GET returns it', async () => {
      const response = await t.request('POST', '/products', { body: { name: 'Pro plan', description: 'for teams' } });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Pro plan', description: 'for teams', createdAt: T0 });
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.headers.get('location')).toBe(`/products/${response.body.id}`);
      const read = await t.request('GET', `/products/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
      expect(read.headers.get('etag')).toBe('"1"');
    });

    it('description is optional (null)', async () => {
      expect((await createProduct({ name: 'Basic' })).description).toBeNull();
    });

    it('name: 250 ok, 251 and empty rejected; description: 4000 ok, 4001 rejected', async () => {
      expect((await createProduct({ name: 'n'.repeat(250) })).name).toHaveLength(250);
      expectPointers(await t.request('POST', '/products', { body: { name: 'n'.repeat(251) } }), ['/name']);
      expectPointers(await t.request('POST', '/products', { body: { name: '' } }), ['/name']);
      expect((await createProduct({ name: 'd', description: 'd'.repeat(4000) })).description).toHaveLength(4000);
      expectPointers(await t.request('POST', '/products', { body: { name: 'd', description: 'd'.repeat(4001) } }), ['/description']);
    });

    it('422 for a missing name, an unknown property and a non-object body', async () => {
      const response = await t.request('POST', '/products', { body: { sku: 'P-1' } });
      expectPointers(response, ['/name', '/sku']);
      expect(response.body.errors).toContainEqual({ pointer: '/sku', detail: 'unknown property: not accepted here' });
      expectPointers(await t.request('POST', '/products', { body: 'Pro' }), ['']);
    });
  });

  describe('GET /products/{productId}', () => {
    it("404 for an unknown id and for another environment's product", async () => {
      expectProblem(await t.request('GET', `/products/${randomUUID()}`), 404, 'not-found');
      const product = await createProduct({ name: 'hidden' });
      const response = await t.request('GET', `/products/${product.id}`, { environment: otherEnvironment, token: otherToken });
      expectProblem(response, 404, 'not-found');
      expect(response.text).not.toContain('hidden');
    });
  });

  describe('GET /products', () => {
    it('pages newest first with limit and pageToken; limit 1/100 ok, 0/101 rejected', async () => {
      const environment = randomUUID();
      const as = { environment, token: t.token([environment]) };
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await createProduct({ name: `product ${i}` }, as)).id);
      const first = await t.request('GET', '/products?limit=2', as);
      expect(first.status).toBe(200);
      const second = await t.request('GET', `/products?limit=2&pageToken=${first.body.nextPageToken}`, as);
      const third = await t.request('GET', `/products?limit=2&pageToken=${second.body.nextPageToken}`, as);
      expect([...first.body.items, ...second.body.items, ...third.body.items].map((p: { id: string }) => p.id)).toEqual([...ids].reverse());
      expect(third.body.nextPageToken).toBeNull();
      expect((await t.request('GET', '/products?limit=1', as)).body.items).toHaveLength(1);
      expect((await t.request('GET', '/products?limit=100', as)).body.items).toHaveLength(5);
      expect((await t.request('GET', '/products', as)).body.items).toHaveLength(5);
      expectPointers(await t.request('GET', '/products?limit=0', as), ['/query/limit']);
      expectPointers(await t.request('GET', '/products?limit=101', as), ['/query/limit']);
      expectPointers(await t.request('GET', '/products?pageToken=nope', as), ['/query/pageToken']);
      for (const forged of ['{"position":"-1"}', '{"position":1}', '{"position":"12abc"}', '{"p":"1"}', '[]']) {
        expectPointers(await t.request('GET', `/products?pageToken=${Buffer.from(forged).toString('base64url')}`, as), ['/query/pageToken']);
      }
      const empty = randomUUID();
      expect((await t.request('GET', '/products', { environment: empty, token: t.token([empty]) })).body).toEqual({ items: [], nextPageToken: null });
    });

    it.each([
      ['an unknown parameter', 'name=Widget', '/query/name'],
      ['a filter products do not have', 'archived=true', '/query/archived'],
      ['an unknown parameter beside valid ones', 'limit=5&sort=name', '/query/sort'],
      ['a repeated parameter', 'limit=1&limit=2', '/query/limit'],
    ])('422 at /query/<name> for %s', async (_label, query, pointer) => {
      expectPointers(await t.request('GET', `/products?${query}`), [pointer]);
    });
  });

  describe('authentication and environments on every endpoint', () => {
    const endpoints = (id: string): [string, string, unknown][] => [
      ['POST', '/products', { name: 'x' }],
      ['GET', '/products', undefined],
      ['GET', `/products/${id}`, undefined],
    ];

    it('401 without a token, 403 with a token for another environment', async () => {
      const product = await createProduct({ name: 'guarded' });
      for (const [method, path, body] of endpoints(product.id)) {
        expectProblem(await t.request(method, path, { body, token: null }), 401, 'unauthorized');
        expectProblem(await t.request(method, path, { body, token: otherToken }), 403, 'forbidden-environment');
      }
    });
  });

  describe('read model and resource views', () => {
    it('keys every read model row by environment', async () => {
      const keys = await t.dataSource.query(
        `select c.relname as table_name, array_to_string(array_agg(a.attname order by k.ordinality), ',') as columns
           from pg_index i
           join pg_class c on c.oid = i.indrelid
           join pg_class ic on ic.oid = i.indexrelid
           cross join lateral unnest(i.indkey) with ordinality as k(attnum, ordinality)
           join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
          where c.relname in ('prices', 'products')
          group by c.relname, ic.relname
          order by ic.relname`,
      );
      expect(keys.length).toBe(5);
      for (const key of keys) expect(key.columns.split(',')[0]).toBe('environment_id');
    });

    it('orders pages by log position as a number, across digit boundaries (9 < 10 < 100)', async () => {
      const environment = randomUUID();
      const as = { environment, token: t.token([environment]) };
      for (const position of [9, 100, 10]) {
        const id = randomUUID();
        const view = { id, name: `at ${position}`, description: null, createdAt: T0 };
        await t.dataSource.query(`insert into products (environment_id, id, position, version, state, view) values ($1, $2, $3, 1, $4, $5)`, [
          environment,
          id,
          position,
          JSON.stringify({ status: 'active', ...view }),
          JSON.stringify(view),
        ]);
      }
      const names: string[] = [];
      let query = '?limit=1';
      for (let page = 0; page < 4 && query; page++) {
        const response = await t.request('GET', `/products${query}`, as);
        names.push(...response.body.items.map((p: { name: string }) => p.name));
        query = response.body.nextPageToken ? `?limit=1&pageToken=${response.body.nextPageToken}` : '';
      }
      expect(names).toEqual(['at 100', 'at 10', 'at 9']);
    });

    it('publishes price.created, price.updated, price.archived and product.created, each carrying the resource as of its event', async () => {
      const product = await createProduct({ name: 'Viewed' });
      const price = await createPrice(t, monthlyFee({ productId: product.id }));
      const renamed = (await t.request('PUT', `/prices/${price.id}`, { body: { name: 'renamed' } })).body;
      const archived = (await t.request('PUT', `/prices/${price.id}/archive`)).body;
      const store = t.app.get(EventStore);
      const catalogue = t.app.get(NotificationCatalogue);
      const events = await store.readStream({ environmentId: t.environmentId, streamType: 'price', streamId: price.id });
      expect(events.map((e) => e.type)).toEqual(['PriceCreated', 'PriceUpdated', 'PriceArchived']);
      expect(events.map((e) => catalogue.namesFor(e))).toEqual([['price.created'], ['price.updated'], ['price.archived']]);
      expect(await catalogue.resourceAt(events[0])).toEqual(price);
      expect(await catalogue.resourceAt(events[1])).toEqual(renamed);
      expect(await catalogue.resourceAt(events[2])).toEqual(archived);
      const [productCreated] = await store.readStream({ environmentId: t.environmentId, streamType: 'product', streamId: product.id });
      expect(catalogue.namesFor(productCreated)).toEqual(['product.created']);
      expect(await catalogue.resourceAt(productCreated)).toEqual(product);
    });

    it('rebuilds the read models from the event log to the same state', async () => {
      const price = await createPrice(t, monthlyFee({ name: 'before rebuild' }));
      await t.request('PUT', `/prices/${price.id}/archive`);
      const before = (await t.request('GET', `/prices/${price.id}`)).body;
      const listBefore = (await t.request('GET', '/prices?limit=100')).body;
      await t.app.get(ProjectionRunner).rebuild('catalog.read-model');
      expect((await t.request('GET', `/prices/${price.id}`)).body).toEqual(before);
      expect((await t.request('GET', '/prices?limit=100')).body).toEqual(listBefore);
    });
  });
});
