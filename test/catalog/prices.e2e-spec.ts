import { randomUUID } from 'node:crypto';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { createPrice, expectPointers, monthlyFee } from './catalog-helpers';

const T0 = '2026-01-15T10:00:00.000Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Prices over HTTP', () => {
  let t: TestApp;
  const clock = new FakeClock(new Date(T0));
  const otherEnvironment = randomUUID();
  let otherToken: string;

  beforeAll(async () => {
    t = await startTestApp({ clock });
    otherToken = t.token([otherEnvironment]);
    // event_based prices name a billable metric of their environment.
    expect((await t.request('POST', '/billable-metrics', { body: { code: 'api_calls', name: 'API calls', aggregation: 'count' } })).status).toBe(201);
  });
  afterAll(() => t.close());
  beforeEach(() => clock.set(T0));

  const other = () => ({ environment: otherEnvironment, token: otherToken });

  describe('POST /prices', () => {
    it('201 with the Price, its ETag and Location; the GET returns the same price', async () => {
      const response = await t.request('POST', '/prices', { body: monthlyFee() });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Pro monthly',
        priceModel: 'fee',
        purchase: 'recurring',
        termCount: 1,
        termUnit: 'month',
        billingTiming: 'advance',
        pricing: { eur: { unitAmount: 1500 } },
        productId: null,
        archived: false,
        archivedAt: null,
        createdAt: T0,
        updatedAt: T0,
      });
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.headers.get('location')).toBe(`/prices/${response.body.id}`);

      const read = await t.request('GET', `/prices/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
      expect(read.headers.get('etag')).toBe('"1"');
    });

    it('records a PriceCreated event in the event store, scoped to the environment', async () => {
      const price = await createPrice(t, monthlyFee({ description: 'internal' }));
      const rows = await t.dataSource.query(`select event_type, stream_type, environment_id, data from events where stream_id = $1 order by stream_version`, [
        price.id,
      ]);
      expect(rows).toEqual([
        {
          event_type: 'PriceCreated',
          stream_type: 'price',
          environment_id: t.environmentId,
          data: expect.objectContaining({ priceId: price.id, name: 'Pro monthly', description: 'internal', createdAt: T0 }),
        },
      ]);
    });

    it('accepts every billingTiming and rejects others at /billingTiming', async () => {
      for (const billingTiming of ['advance', 'arrears', 'event_based']) {
        const metric = billingTiming === 'event_based' ? { metricCode: 'api_calls' } : {};
        expect((await createPrice(t, monthlyFee({ billingTiming, ...metric }))).billingTiming).toBe(billingTiming);
      }
      expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ billingTiming: 'later' }) }), ['/billingTiming']);
    });

    it('issue 20 #11: an event_based price whose metricCode names no billable metric of the environment is a 422 at /metricCode', async () => {
      const eventBased = (metricCode: string) => monthlyFee({ billingTiming: 'event_based', metricCode });
      const unknown = await t.request('POST', '/prices', { body: eventBased('no_such_metric') });
      expectProblem(unknown, 422, 'validation-failed', '/metricCode');
      expect(unknown.body.errors[0].detail).toBe("no billable metric 'no_such_metric' exists in this environment");
      // Another environment's metric does not exist here.
      expectProblem(await t.request('POST', '/prices', { ...other(), body: eventBased('api_calls') }), 422, 'validation-failed', '/metricCode');
      const created = await createPrice(t, eventBased('api_calls'));
      expect(created.metricCode).toBe('api_calls');
      // An update cannot move the price to another (or a missing) metric.
      const update = await t.request('PUT', `/prices/${created.id}`, { body: { metricCode: 'no_such_metric' } });
      expectProblem(update, 422, 'validation-failed', '/metricCode');
    });

    it('reports every missing required field with its pointer', async () => {
      expectPointers(await t.request('POST', '/prices', { body: {} }), ['/name', '/priceModel', '/purchase', '/pricing']);
    });

    it('422 at the root for a body that is not an object', async () => {
      expectPointers(await t.request('POST', '/prices', { body: [monthlyFee()] }), ['']);
    });

    it('422 pointing at an unknown property, and at a read-only one (not silently stripped)', async () => {
      const response = await t.request('POST', '/prices', { body: monthlyFee({ colour: 'red', id: randomUUID() }) });
      expectPointers(response, ['/colour', '/id']);
      expect(response.body.errors).toContainEqual({ pointer: '/colour', detail: 'unknown property: not accepted here' });
      expect(response.body.errors).toContainEqual({ pointer: '/id', detail: 'is read-only' });
    });

    describe('limits of INTERFACE.md', () => {
      it('name: 250 characters ok, 251 and empty rejected at /name', async () => {
        expect((await createPrice(t, monthlyFee({ name: 'n'.repeat(250) }))).name).toHaveLength(250);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ name: 'n'.repeat(251) }) }), ['/name']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ name: '' }) }), ['/name']);
      });

      it('description: 4000 characters ok, 4001 rejected at /description', async () => {
        expect((await createPrice(t, monthlyFee({ description: 'd'.repeat(4000) }))).description).toHaveLength(4000);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ description: 'd'.repeat(4001) }) }), ['/description']);
      });

      it('termCount: 1 and 10000 ok, 0 and 10001 rejected at /termCount', async () => {
        expect((await createPrice(t, monthlyFee({ termCount: 1, termUnit: 'day' }))).termCount).toBe(1);
        expect((await createPrice(t, monthlyFee({ termCount: 10000, termUnit: 'day' }))).termCount).toBe(10000);
        const zero = await t.request('POST', '/prices', { body: monthlyFee({ termCount: 0 }) });
        expectPointers(zero, ['/termCount']);
        expect(zero.body.errors[0].detail).toBe('must be an integer from 1 to 10000');
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ termCount: 10001 }) }), ['/termCount']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ termCount: 1.5 }) }), ['/termCount']);
      });
    });

    describe('purchase and term', () => {
      it('recurring without a term: 422 at /termCount and /termUnit', async () => {
        const response = await t.request('POST', '/prices', { body: monthlyFee({ termCount: undefined, termUnit: undefined }) });
        expectPointers(response, ['/termCount', '/termUnit']);
        expect(response.body.errors).toContainEqual({ pointer: '/termCount', detail: 'is required for a recurring price' });
      });

      it('one_time with a term: 422 at /termCount and /termUnit', async () => {
        const response = await t.request('POST', '/prices', { body: monthlyFee({ purchase: 'one_time' }) });
        expectPointers(response, ['/termCount', '/termUnit']);
        expect(response.body.errors).toContainEqual({ pointer: '/termUnit', detail: 'is not allowed for a one_time price' });
      });

      it('one_time without a term: 201 without termCount and termUnit (omitted, never null)', async () => {
        const price = await createPrice(t, monthlyFee({ purchase: 'one_time', termCount: undefined, termUnit: undefined }));
        expect(price).toMatchObject({ purchase: 'one_time' });
        expect(price).not.toHaveProperty('termCount');
        expect(price).not.toHaveProperty('termUnit');
        expect((await t.request('GET', `/prices/${price.id}`)).body).toEqual(price);
      });

      it('rejects an unknown termUnit, priceModel and purchase', async () => {
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ termUnit: 'fortnight', priceModel: 'flat', purchase: 'often' }) }), [
          '/termUnit',
          '/priceModel',
          '/purchase',
        ]);
      });
    });

    describe('pricing', () => {
      it('an uppercase currency key is rejected at /pricing/EUR', async () => {
        const response = await t.request('POST', '/prices', { body: monthlyFee({ pricing: { EUR: { unitAmount: 1 } } }) });
        expectPointers(response, ['/pricing/EUR']);
        expect(response.body.errors[0].detail).toBe("currency codes must be lowercase: use 'eur'");
      });

      it('an unknown currency key is rejected at /pricing/xyz', async () => {
        const response = await t.request('POST', '/prices', { body: monthlyFee({ pricing: { xyz: { unitAmount: 1 } } }) });
        expectPointers(response, ['/pricing/xyz']);
        expect(response.body.errors[0].detail).toBe("'xyz' is not a supported ISO 4217 currency code");
      });

      it('an empty or non-object pricing is rejected at /pricing', async () => {
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ pricing: {} }) }), ['/pricing']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ pricing: [1] }) }), ['/pricing']);
      });

      it('several currencies are kept, each validated', async () => {
        const price = await createPrice(t, monthlyFee({ pricing: { usd: { unitAmount: 1600 }, eur: { unitAmount: 1500 }, jpy: { unitAmount: 200 } } }));
        expect(price.pricing).toEqual({ eur: { unitAmount: 1500 }, jpy: { unitAmount: 200 }, usd: { unitAmount: 1600 } });
      });

      it('fee entry shape: unitAmount required, a whole non-negative amount, no other members', async () => {
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ pricing: { eur: {} } }) }), ['/pricing/eur/unitAmount']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ pricing: { eur: { unitAmount: -1 } } }) }), ['/pricing/eur/unitAmount']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ pricing: { eur: { unitAmount: 1.5 } } }) }), ['/pricing/eur/unitAmount']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ pricing: { eur: { unitAmount: 1, tiers: [] } } }) }), ['/pricing/eur/tiers']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ pricing: { eur: 1500 } }) }), ['/pricing/eur']);
      });

      it('package entry shape: packageSize at least 1 and packageAmount required', async () => {
        const body = (eur: unknown) => monthlyFee({ priceModel: 'package', pricing: { eur } });
        expectPointers(await t.request('POST', '/prices', { body: body({}) }), ['/pricing/eur/packageSize', '/pricing/eur/packageAmount']);
        expectPointers(await t.request('POST', '/prices', { body: body({ packageSize: 0, packageAmount: 500 }) }), ['/pricing/eur/packageSize']);
        expectPointers(await t.request('POST', '/prices', { body: body({ packageSize: 5, packageAmount: 'x' }) }), ['/pricing/eur/packageAmount']);
      });

      it('tiered entry shape (graduated and volume): ascending upTo, unbounded last tier, amounts', async () => {
        const body = (priceModel: string, tiers: unknown) => monthlyFee({ priceModel, pricing: { eur: { tiers } } });
        const descending = [
          { upTo: 5, unitAmount: 500 },
          { upTo: 3, unitAmount: 400 },
          { upTo: null, unitAmount: 300 },
        ];
        const response = await t.request('POST', '/prices', { body: body('graduated', descending) });
        expectPointers(response, ['/pricing/eur/tiers/1/upTo']);
        expect(response.body.errors[0].detail).toBe("must be greater than the previous tier's upTo (5)");
        expectPointers(
          await t.request('POST', '/prices', {
            body: body('volume', [
              { upTo: 5, unitAmount: 500 },
              { upTo: 10, unitAmount: 400 },
            ]),
          }),
          ['/pricing/eur/tiers/1/upTo'],
        );
        expectPointers(
          await t.request('POST', '/prices', {
            body: body('volume', [
              { upTo: null, unitAmount: 1 },
              { upTo: null, unitAmount: 1 },
            ]),
          }),
          ['/pricing/eur/tiers/0/upTo'],
        );
        expectPointers(await t.request('POST', '/prices', { body: body('graduated', []) }), ['/pricing/eur/tiers']);
        expectPointers(await t.request('POST', '/prices', { body: body('graduated', [{ upTo: null, unitAmount: -5, flatAmount: 'x', colour: 1 }]) }), [
          '/pricing/eur/tiers/0/unitAmount',
          '/pricing/eur/tiers/0/flatAmount',
          '/pricing/eur/tiers/0/colour',
        ]);
        expectPointers(await t.request('POST', '/prices', { body: body('graduated', [{ unitAmount: 1 }]) }), ['/pricing/eur/tiers/0/upTo']);
      });

      it('a valid tiered price defaults flatAmount to 0', async () => {
        const price = await createPrice(
          t,
          monthlyFee({
            priceModel: 'volume',
            pricing: {
              eur: {
                tiers: [
                  { upTo: 5, unitAmount: 500 },
                  { upTo: null, unitAmount: 300, flatAmount: 100 },
                ],
              },
            },
          }),
        );
        expect(price.pricing).toEqual({
          eur: {
            tiers: [
              { upTo: 5, unitAmount: 500, flatAmount: 0 },
              { upTo: null, unitAmount: 300, flatAmount: 100 },
            ],
          },
        });
      });
    });

    describe('productId', () => {
      it('names an existing product of the same environment', async () => {
        const product = await t.request('POST', '/products', { body: { name: 'Pro plan' } });
        expect(product.status).toBe(201);
        const price = await createPrice(t, monthlyFee({ productId: product.body.id }));
        expect(price.productId).toBe(product.body.id);
      });

      it("422 at /productId for an unknown product, another environment's product, or a non-uuid", async () => {
        const unknown = await t.request('POST', '/prices', { body: monthlyFee({ productId: randomUUID() }) });
        expectPointers(unknown, ['/productId']);
        expect(unknown.body.errors[0].detail).toMatch(/^no product .* exists in this environment$/);

        const foreign = await t.request('POST', '/products', { body: { name: 'Theirs' }, ...other() });
        expect(foreign.status).toBe(201);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ productId: foreign.body.id }) }), ['/productId']);
        expectPointers(await t.request('POST', '/prices', { body: monthlyFee({ productId: 'prod-1' }) }), ['/productId']);
      });
    });
  });

  describe('GET /prices/{priceId}', () => {
    it('404 for an unknown id, and for an id of another environment (without its data)', async () => {
      expectProblem(await t.request('GET', `/prices/${randomUUID()}`), 404, 'not-found');
      const price = await createPrice(t, monthlyFee({ name: 'secret name' }));
      const response = await t.request('GET', `/prices/${price.id}`, other());
      expectProblem(response, 404, 'not-found');
      expect(response.text).not.toContain('secret name');
    });

    it('404 for an id that is not a uuid (it names no price)', async () => {
      expectProblem(await t.request('GET', '/prices/not-a-uuid'), 404, 'not-found');
    });
  });

  describe('PUT /prices/{priceId}', () => {
    it('changes only the given fields, keeps the omitted ones, moves updatedAt and the ETag', async () => {
      const price = await createPrice(t, monthlyFee({ description: 'notes', billingTiming: 'arrears' }));
      clock.advance(60_000);
      const response = await t.request('PUT', `/prices/${price.id}`, { body: { name: 'Pro monthly v2' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...price, name: 'Pro monthly v2', updatedAt: '2026-01-15T10:01:00.000Z' });
      expect(response.headers.get('etag')).toBe('"2"');
      expect((await t.request('GET', `/prices/${price.id}`)).body).toEqual(response.body);
    });

    it('updates termCount, description and pricing together; description null clears it', async () => {
      const price = await createPrice(t, monthlyFee({ description: 'notes' }));
      const response = await t.request('PUT', `/prices/${price.id}`, {
        body: { termCount: 3, description: null, pricing: { usd: { unitAmount: 1700 } } },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ name: 'Pro monthly', termCount: 3, termUnit: 'month', pricing: { usd: { unitAmount: 1700 } } });
      expect(response.body).not.toHaveProperty('description');
    });

    it('an update that changes nothing answers 200 with the same version', async () => {
      const price = await createPrice(t, monthlyFee());
      const response = await t.request('PUT', `/prices/${price.id}`, { body: { name: 'Pro monthly' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.body).toEqual(price);
    });

    it('422 for any other property: unchangeable, read-only and unknown ones, each with its pointer', async () => {
      const price = await createPrice(t, monthlyFee());
      const response = await t.request('PUT', `/prices/${price.id}`, { body: { priceModel: 'volume', termUnit: 'day', createdAt: T0, colour: 'red' } });
      expectPointers(response, ['/priceModel', '/termUnit', '/createdAt', '/colour']);
      expect(response.body.errors).toContainEqual({ pointer: '/priceModel', detail: 'cannot be changed after the price is created' });
    });

    it('applies the create limits: name 250/251/empty, description 4000/4001, termCount 1/10000/0/10001', async () => {
      const price = await createPrice(t, monthlyFee());
      const put = (body: unknown) => t.request('PUT', `/prices/${price.id}`, { body });
      expect((await put({ name: 'n'.repeat(250) })).status).toBe(200);
      expectPointers(await put({ name: 'n'.repeat(251) }), ['/name']);
      expectPointers(await put({ name: '' }), ['/name']);
      expect((await put({ description: 'd'.repeat(4000) })).status).toBe(200);
      expectPointers(await put({ description: 'd'.repeat(4001) }), ['/description']);
      expect((await put({ termCount: 1 })).status).toBe(200);
      expect((await put({ termCount: 10000 })).body.termCount).toBe(10000);
      expectPointers(await put({ termCount: 0 }), ['/termCount']);
      expectPointers(await put({ termCount: 10001 }), ['/termCount']);
      expectPointers(await put({ pricing: { EUR: { unitAmount: 1 }, xyz: { unitAmount: 1 } } }), ['/pricing/EUR', '/pricing/xyz']);
      expectPointers(await put({ pricing: { eur: { tiers: [] } } }), ['/pricing/eur/unitAmount', '/pricing/eur/tiers']);
    });

    it('termCount of a one_time price is rejected at /termCount', async () => {
      const price = await createPrice(t, monthlyFee({ purchase: 'one_time', termCount: undefined, termUnit: undefined }));
      expectPointers(await t.request('PUT', `/prices/${price.id}`, { body: { termCount: 2 } }), ['/termCount']);
    });

    it('If-Match: the current ETag applies, a stale one is a 409, a malformed one a 422', async () => {
      const price = await createPrice(t, monthlyFee());
      const first = await t.request('PUT', `/prices/${price.id}`, { body: { name: 'a' }, headers: { 'if-match': '"1"' } });
      expect(first.status).toBe(200);
      expect(first.headers.get('etag')).toBe('"2"');
      expectProblem(await t.request('PUT', `/prices/${price.id}`, { body: { name: 'b' }, headers: { 'if-match': '"1"' } }), 409, 'version-conflict');
      expectPointers(await t.request('PUT', `/prices/${price.id}`, { body: { name: 'b' }, headers: { 'if-match': 'v1' } }), ['/headers/if-match']);
      expect((await t.request('GET', `/prices/${price.id}`)).body.name).toBe('a');
    });

    it('409 price-archived for an archived price', async () => {
      const price = await createPrice(t, monthlyFee());
      expect((await t.request('PUT', `/prices/${price.id}/archive`)).status).toBe(200);
      expectProblem(await t.request('PUT', `/prices/${price.id}`, { body: { name: 'again' } }), 409, 'price-archived');
    });

    it("404 for an unknown id and for another environment's price", async () => {
      expectProblem(await t.request('PUT', `/prices/${randomUUID()}`, { body: { name: 'x' } }), 404, 'not-found');
      const price = await createPrice(t, monthlyFee());
      expectProblem(await t.request('PUT', `/prices/${price.id}`, { body: { name: 'x' }, ...other() }), 404, 'not-found');
      expect((await t.request('GET', `/prices/${price.id}`)).body.name).toBe('Pro monthly');
    });
  });

  describe('PUT /prices/{priceId}/archive', () => {
    it('200 with archived: true; a second archive is a 409; GET shows it archived', async () => {
      const price = await createPrice(t, monthlyFee());
      clock.advance(1000);
      const response = await t.request('PUT', `/prices/${price.id}/archive`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...price, archived: true, archivedAt: '2026-01-15T10:00:01.000Z', updatedAt: '2026-01-15T10:00:01.000Z' });
      expect(response.headers.get('etag')).toBe('"2"');
      expect((await t.request('GET', `/prices/${price.id}`)).body).toEqual(response.body);
      expectProblem(await t.request('PUT', `/prices/${price.id}/archive`), 409, 'price-archived');
    });

    it('accepts {} as the body; any property is a 422 with its pointer', async () => {
      const price = await createPrice(t, monthlyFee());
      expectPointers(await t.request('PUT', `/prices/${price.id}/archive`, { body: { reason: 'old' } }), ['/reason']);
      expect((await t.request('PUT', `/prices/${price.id}/archive`, { body: {} })).status).toBe(200);
    });

    it('honours If-Match: stale is a 409', async () => {
      const price = await createPrice(t, monthlyFee());
      await t.request('PUT', `/prices/${price.id}`, { body: { name: 'renamed' } });
      expectProblem(await t.request('PUT', `/prices/${price.id}/archive`, { headers: { 'if-match': '"1"' } }), 409, 'version-conflict');
      expect((await t.request('PUT', `/prices/${price.id}/archive`, { headers: { 'if-match': '"2"' } })).status).toBe(200);
    });

    it("404 for an unknown id and for another environment's price", async () => {
      expectProblem(await t.request('PUT', `/prices/${randomUUID()}/archive`), 404, 'not-found');
      const price = await createPrice(t, monthlyFee());
      expectProblem(await t.request('PUT', `/prices/${price.id}/archive`, other()), 404, 'not-found');
      expect((await t.request('GET', `/prices/${price.id}`)).body.archived).toBe(false);
    });
  });

  describe('POST /prices/{priceId}/quote', () => {
    const tiers = [
      { upTo: 5, unitAmount: 500 },
      { upTo: 10, unitAmount: 400 },
      { upTo: null, unitAmount: 300 },
    ];
    const quote = (id: string, body: unknown, options = {}) => t.request('POST', `/prices/${id}/quote`, { body, ...options });

    it('graduated 1-5 @500, 6-10 @400, 11+ @300: 11 units cost 4800', async () => {
      const price = await createPrice(t, monthlyFee({ priceModel: 'graduated', pricing: { eur: { tiers } } }));
      const response = await quote(price.id, { currency: 'eur', quantity: 11 });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ priceId: price.id, currency: 'eur', quantity: 11, amount: 4800 });
    });

    it('volume with the same tiers: 11 units cost 11 x 300 = 3300', async () => {
      const price = await createPrice(t, monthlyFee({ priceModel: 'volume', pricing: { eur: { tiers } } }));
      expect((await quote(price.id, { currency: 'eur', quantity: 11 })).body).toEqual({ priceId: price.id, currency: 'eur', quantity: 11, amount: 3300 });
    });

    it('package of 5 @500: 8 units are two started packages, 1000', async () => {
      const price = await createPrice(t, monthlyFee({ priceModel: 'package', pricing: { eur: { packageSize: 5, packageAmount: 500 } } }));
      expect((await quote(price.id, { currency: 'eur', quantity: 8 })).body).toEqual({ priceId: price.id, currency: 'eur', quantity: 8, amount: 1000 });
    });

    it('fee 1500 x 2.5 = 3750, in the currency asked for', async () => {
      const price = await createPrice(t, monthlyFee({ pricing: { eur: { unitAmount: 1500 }, usd: { unitAmount: 1600 } } }));
      expect((await quote(price.id, { currency: 'eur', quantity: 2.5 })).body).toEqual({ priceId: price.id, currency: 'eur', quantity: 2.5, amount: 3750 });
      expect((await quote(price.id, { currency: 'usd', quantity: 2.5 })).body.amount).toBe(4000);
    });

    it('422 at /currency for a currency the price has no pricing in; at /quantity for bad quantities; unknown properties', async () => {
      const price = await createPrice(t, monthlyFee());
      const response = await quote(price.id, { currency: 'xyz', quantity: 1 });
      expectPointers(response, ['/currency']);
      expect(response.body.errors[0].detail).toBe("the price has no pricing in 'xyz' (it has: eur)");
      expectPointers(await quote(price.id, { currency: 'usd', quantity: 1 }), ['/currency']);
      expectPointers(await quote(price.id, { currency: 'eur', quantity: -1 }), ['/quantity']);
      expectPointers(await quote(price.id, { currency: 'eur', quantity: '1' }), ['/quantity']);
      const decimals = await quote(price.id, { currency: 'eur', quantity: 1.00001 });
      expectProblem(decimals, 422, 'too-many-decimals');
      expect(decimals.body.errors).toEqual([{ pointer: '/quantity', detail: 'must have at most 4 decimal places' }]);
      expectPointers(await quote(price.id, { currency: 'eur', quantity: 1, discount: 5 }), ['/discount']);
      expectPointers(await quote(price.id, {}), ['/currency', '/quantity']);
    });

    it("404 for an unknown id and for another environment's price", async () => {
      expectProblem(await quote(randomUUID(), { currency: 'eur', quantity: 1 }), 404, 'not-found');
      const price = await createPrice(t, monthlyFee());
      expectProblem(await quote(price.id, { currency: 'eur', quantity: 1 }, other()), 404, 'not-found');
    });
  });

  describe('GET /prices', () => {
    it('pages through 25 prices with limit 10: 3 pages, newest first, no duplicates', async () => {
      const environment = randomUUID();
      const token = t.token([environment]);
      const created: string[] = [];
      for (let i = 0; i < 25; i++) created.push((await createPrice(t, monthlyFee({ name: `price ${i}` }), { environment, token })).id);

      const pages: any[] = [];
      let pageToken: string | null = null;
      do {
        const query: string = pageToken ? `?limit=10&pageToken=${encodeURIComponent(pageToken)}` : '?limit=10';
        const response = await t.request('GET', `/prices${query}`, { environment, token });
        expect(response.status).toBe(200);
        pages.push(response.body);
        pageToken = response.body.nextPageToken;
      } while (pageToken && pages.length < 5);

      expect(pages.map((page) => page.items.length)).toEqual([10, 10, 5]);
      expect(pages[2].nextPageToken).toBeNull();
      const ids = pages.flatMap((page) => page.items.map((item: { id: string }) => item.id));
      expect(new Set(ids).size).toBe(25);
      expect(ids).toEqual([...created].reverse());
      expect(pages[0].items[0].name).toBe('price 24');
    });

    it('limit: default 20, 1 and 100 ok, 0, 101 and non-integers rejected at /query/limit', async () => {
      const environment = randomUUID();
      const token = t.token([environment]);
      for (let i = 0; i < 21; i++) await createPrice(t, monthlyFee({ name: `p${i}` }), { environment, token });
      const list = (query: string) => t.request('GET', `/prices${query}`, { environment, token });
      const byDefault = await list('');
      expect(byDefault.body.items).toHaveLength(20);
      expect(byDefault.body.nextPageToken).toEqual(expect.any(String));
      const one = await list('?limit=1');
      expect(one.body.items).toHaveLength(1);
      expect(one.body.items[0].name).toBe('p20');
      const hundred = await list('?limit=100');
      expect(hundred.body.items).toHaveLength(21);
      expect(hundred.body.nextPageToken).toBeNull();
      for (const bad of ['0', '101', '1.5', 'ten']) {
        const response = await list(`?limit=${bad}`);
        expectPointers(response, ['/query/limit']);
        expect(response.body.errors[0].detail).toBe('must be an integer from 1 to 100');
      }
    });

    it('a page token that this service did not issue is rejected at /query/pageToken', async () => {
      const forged = [
        '{"position":"1; drop table prices"}',
        '{"q":1}',
        '{"p":"1"}',
        '{"position":12}',
        '{"position":"0"}',
        '{"position":"1e5"}',
        '{"position":"99999999999999999999"}',
        '{"position":"1\\u0000"}',
        '["1"]',
        'null',
      ];
      for (const token of ['garbage', ...forged.map((json) => Buffer.from(json).toString('base64url'))]) {
        expectPointers(await t.request('GET', `/prices?pageToken=${token}`), ['/query/pageToken']);
      }
    });

    it('filters by archived and productId; invalid filter values are rejected with pointers', async () => {
      const environment = randomUUID();
      const token = t.token([environment]);
      const as = { environment, token };
      const product = await t.request('POST', '/products', { body: { name: 'Widget' }, ...as });
      await createPrice(t, monthlyFee({ name: 'active', productId: product.body.id }), as);
      const archived = await createPrice(t, monthlyFee({ name: 'archived' }), as);
      await t.request('PUT', `/prices/${archived.id}/archive`, as);
      const names = async (query: string) => (await t.request('GET', `/prices${query}`, as)).body.items.map((p: { name: string }) => p.name);
      expect(await names('')).toEqual(['archived', 'active']);
      expect(await names('?archived=true')).toEqual(['archived']);
      expect(await names('?archived=false')).toEqual(['active']);
      expect(await names(`?productId=${product.body.id}`)).toEqual(['active']);
      expect(await names(`?productId=${product.body.id}&archived=true`)).toEqual([]);
      expect(await names(`?productId=${randomUUID()}`)).toEqual([]);
      expectPointers(await t.request('GET', '/prices?archived=yes&productId=p1&limit=0', as), ['/query/archived', '/query/productId', '/query/limit']);
    });

    it.each([
      ['an unknown parameter', 'sort=name', '/query/sort'],
      ['a misspelt filter', 'archive=true', '/query/archive'],
      ['an unknown parameter beside valid ones', 'limit=5&archived=true&product=x', '/query/product'],
      ['a repeated parameter', 'archived=true&archived=false', '/query/archived'],
      ['a repeated limit', 'limit=1&limit=2', '/query/limit'],
    ])('422 at /query/<name> for %s, as on the invoicing lists', async (_label, query, pointer) => {
      expectPointers(await t.request('GET', `/prices?${query}`), [pointer]);
    });

    it("lists only the caller's environment", async () => {
      const environment = randomUUID();
      const token = t.token([environment]);
      await createPrice(t, monthlyFee({ name: 'mine' }), { environment, token });
      const empty = randomUUID();
      expect((await t.request('GET', '/prices', { environment: empty, token: t.token([empty]) })).body).toEqual({ items: [], nextPageToken: null });
      expect((await t.request('GET', '/prices', { environment, token })).body.items.map((p: { name: string }) => p.name)).toEqual(['mine']);
    });
  });

  describe('authentication and environments on every endpoint', () => {
    const endpoints = (id: string): [string, string, unknown][] => [
      ['POST', '/prices', monthlyFee()],
      ['GET', '/prices', undefined],
      ['GET', `/prices/${id}`, undefined],
      ['PUT', `/prices/${id}`, { name: 'x' }],
      ['PUT', `/prices/${id}/archive`, undefined],
      ['POST', `/prices/${id}/quote`, { currency: 'eur', quantity: 1 }],
    ];

    it('401 without a token', async () => {
      const price = await createPrice(t, monthlyFee());
      for (const [method, path, body] of endpoints(price.id)) {
        const response = await t.request(method, path, { body, token: null });
        expectProblem(response, 401, 'unauthorized');
      }
      expect((await t.request('GET', `/prices/${price.id}`)).body).toEqual(price);
    });

    it('403 with a token for another environment', async () => {
      const price = await createPrice(t, monthlyFee());
      for (const [method, path, body] of endpoints(price.id)) {
        expectProblem(await t.request(method, path, { body, token: otherToken }), 403, 'forbidden-environment');
      }
      expect((await t.request('GET', `/prices/${price.id}`)).body).toEqual(price);
    });
  });

  describe('problem types and API description', () => {
    it('documents the catalog problem types', async () => {
      for (const code of ['price-exists', 'price-archived', 'product-exists']) {
        const response = await t.request('GET', `/problems/${code}`, { token: null, environment: null });
        expect(response.body).toMatchObject({ type: `/problems/${code}`, status: 409 });
      }
    });

    it('describes the price operations, bodies and responses in the OpenAPI document', async () => {
      const { body } = await t.request('GET', '/openapi.json', { token: null, environment: null });
      expect(Object.keys(body.paths['/prices'])).toEqual(expect.arrayContaining(['get', 'post']));
      expect(body.paths['/prices'].post.responses).toHaveProperty('201');
      expect(body.paths['/prices'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreatePriceBody' });
      expect(body.paths['/prices/{priceId}'].put.responses).toHaveProperty('409');
      expect(body.paths['/prices/{priceId}/archive'].put.responses).toHaveProperty('200');
      expect(body.paths['/prices/{priceId}/quote'].post.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/QuoteDto',
      });
      expect(body.components.schemas.CreatePriceBody.required).toEqual(['name', 'priceModel', 'purchase', 'pricing']);
      expect(body.components.schemas.PriceDto.properties.name).toMatchObject({ minLength: 1, maxLength: 250 });
    });

    it('types every integer as an integer and every decimal as a double in the catalog schemas', async () => {
      const { body } = await t.request('GET', '/openapi.json', { token: null, environment: null });
      const schemas = body.components.schemas;
      for (const name of ['CreatePriceBody', 'UpdatePriceBody', 'PriceDto']) {
        expect(schemas[name].properties.termCount).toMatchObject({ type: 'integer', format: 'int32' });
      }
      expect(schemas.QuotePriceBody.properties.quantity).toMatchObject({ type: 'number', format: 'double' });
      expect(schemas.QuoteDto.properties).toMatchObject({ quantity: { type: 'number', format: 'double' }, amount: { type: 'integer', format: 'int64' } });
      // Anywhere in the catalog's schemas: no bare `number` (a decimal says double, an integer says integer).
      const numbers: string[] = [];
      const walk = (schema: unknown, path: string): void => {
        if (Array.isArray(schema)) return schema.forEach((item, i) => walk(item, `${path}/${i}`));
        if (!schema || typeof schema !== 'object') return;
        const { type, format } = schema as { type?: string; format?: string };
        if (type === 'number' && format !== 'double') numbers.push(path);
        if (type === 'integer' && format !== undefined) expect(['int32', 'int64']).toContain(format);
        for (const [key, value] of Object.entries(schema)) walk(value, `${path}/${key}`);
      };
      for (const name of [
        'CreatePriceBody',
        'UpdatePriceBody',
        'PriceDto',
        'PricePageDto',
        'QuotePriceBody',
        'QuoteDto',
        'CreateProductBody',
        'ProductDto',
        'ProductPageDto',
      ]) {
        expect(schemas).toHaveProperty(name);
        walk(schemas[name], name);
      }
      expect(numbers).toEqual([]);
    });
  });

  describe('nulls only where the interface allows them', () => {
    /** INTERFACE.md marks no Price member nullable; productId and archivedAt are the service's own nullable members. */
    const OWN_NULLABLE = ['productId', 'archivedAt'];
    const nullMembers = (price: Record<string, unknown>) => Object.keys(price).filter((key) => price[key] === null);

    it('no Price carries null in an interface member: one_time omits the term, no description omits it, on every read and write', async () => {
      const environment = randomUUID();
      const as = { environment, token: t.token([environment]) };
      const oneTime = await createPrice(t, monthlyFee({ purchase: 'one_time', termCount: null, termUnit: null, description: null }), as);
      const recurring = await createPrice(t, monthlyFee({ description: 'notes' }), as);
      const cleared = (await t.request('PUT', `/prices/${recurring.id}`, { ...as, body: { description: null } })).body;
      const archived = (await t.request('PUT', `/prices/${oneTime.id}/archive`, as)).body;
      const listed = (await t.request('GET', '/prices', as)).body.items;
      for (const price of [oneTime, recurring, cleared, archived, ...listed]) {
        expect(nullMembers(price).filter((key) => !OWN_NULLABLE.includes(key))).toEqual([]);
      }
      expect(Object.keys(oneTime)).not.toEqual(expect.arrayContaining(['termCount']));
      expect(Object.keys(oneTime)).not.toEqual(expect.arrayContaining(['termUnit']));
      expect(Object.keys(oneTime)).not.toEqual(expect.arrayContaining(['description']));
      expect(recurring).toMatchObject({ description: 'notes', termCount: 1, termUnit: 'month' });
      expect(cleared).not.toHaveProperty('description');
    });

    it('the OpenAPI document marks none of them nullable nor required, and says when each is omitted', async () => {
      const { body } = await t.request('GET', '/openapi.json', { token: null, environment: null });
      const price = body.components.schemas.PriceDto;
      const nullable = Object.entries(price.properties as Record<string, { nullable?: boolean }>)
        .filter(([, schema]) => schema.nullable)
        .map(([key]) => key);
      expect(nullable.sort()).toEqual([...OWN_NULLABLE].sort());
      for (const member of ['description', 'termCount', 'termUnit']) {
        expect(price.required ?? []).not.toContain(member);
        expect(price.properties[member].description).toMatch(/omitted/);
      }
    });
  });
});
