import { randomUUID } from 'node:crypto';
import { CommandPath } from '@billing/event-store';
import { taxCodeEvolver, taxCodeStream, toTaxCodeView } from '@billing/invoicing';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { otherEnvironment, pointersOf } from './invoicing-helpers';

describe('Tax codes over HTTP', () => {
  let t: TestApp;
  const clock = new FakeClock(new Date('2026-01-15T10:00:00.000Z'));

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  async function expectReadModelMatchesStream(code: string, environmentId = t.environmentId, token?: string) {
    const response = await t.request('GET', `/tax-codes/${encodeURIComponent(code)}`, { environment: environmentId, token });
    expect(response.status).toBe(200);
    const { state, version } = await t.app.get(CommandPath).load(taxCodeStream(environmentId, code), taxCodeEvolver);
    if (state.status === 'none') throw new Error(`tax code ${code} has no stream`);
    expect(response.body).toEqual(toTaxCodeView(state));
    expect(response.headers.get('etag')).toBe(`"${version}"`);
    return response.body;
  }

  describe('POST /tax-codes', () => {
    it('201 with the tax code, ETag "1" and its Location', async () => {
      const response = await t.request('POST', '/tax-codes', { body: { code: 'VAT25', rate: 0.25, taxable: true, description: 'Standard' } });
      expect(response.status).toBe(201);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.headers.get('location')).toBe('/tax-codes/VAT25');
      expect(response.body).toEqual({
        code: 'VAT25',
        rate: 0.25,
        taxable: true,
        description: 'Standard',
        createdAt: '2026-01-15T10:00:00.000Z',
        updatedAt: null,
      });
      await expectReadModelMatchesStream('VAT25');
    });

    it('409 tax-code-exists for the same code, also under concurrency', async () => {
      expectProblem(await t.request('POST', '/tax-codes', { body: { code: 'VAT25', rate: 0.1, taxable: true } }), 409, 'tax-code-exists');
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => t.request('POST', '/tax-codes', { body: { code: 'RACE', rate: 0.1, taxable: true } })),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
      for (const r of responses.filter((r) => r.status === 409)) expectProblem(r, 409, 'tax-code-exists');
    });

    it('codes are case-sensitive and per environment', async () => {
      expect((await t.request('POST', '/tax-codes', { body: { code: 'vat25', rate: 0.2, taxable: true } })).status).toBe(201);
      const other = otherEnvironment(t);
      expect((await other.request('POST', '/tax-codes', { body: { code: 'VAT25', rate: 0.24, taxable: true } })).status).toBe(201);
      expect((await t.request('GET', '/tax-codes/VAT25')).body.rate).toBe(0.25);
      expect((await other.request('GET', '/tax-codes/VAT25')).body.rate).toBe(0.24);
    });

    it.each([
      ['a rate above 1', { code: 'X1', rate: 1.5, taxable: true }, 'validation-failed', '/rate'],
      ['a negative rate', { code: 'X1', rate: -0.1, taxable: true }, 'validation-failed', '/rate'],
      ['a rate with 5 decimals', { code: 'X1', rate: 0.12345, taxable: true }, 'too-many-decimals', '/rate'],
      ['a string rate', { code: 'X1', rate: '0.1', taxable: true }, 'validation-failed', '/rate'],
      ['a missing taxable', { code: 'X1', rate: 0.1 }, 'validation-failed', '/taxable'],
      ['an empty code', { code: '', rate: 0.1, taxable: true }, 'validation-failed', '/code'],
      ['a code of 51 characters', { code: 'x'.repeat(51), rate: 0.1, taxable: true }, 'validation-failed', '/code'],
      ['an unknown property', { code: 'X1', rate: 0.1, taxable: true, createdAt: '2026-01-01T00:00:00Z' }, 'validation-failed', '/createdAt'],
    ])('422 for %s', async (_label, body, type, pointer) => {
      const response = await t.request('POST', '/tax-codes', { body });
      expectProblem(response, 422, type, pointer);
      expect(pointersOf(response)).toEqual([pointer]);
    });

    it('401 and 403', async () => {
      const body = { code: 'AUTH', rate: 0.1, taxable: true };
      expectProblem(await t.request('POST', '/tax-codes', { token: null, body }), 401, 'unauthorized');
      expectProblem(await t.request('POST', '/tax-codes', { token: t.token([randomUUID()]), body }), 403, 'forbidden-environment');
    });
  });

  describe('PUT /tax-codes/{code}', () => {
    beforeAll(async () => {
      const created = await t.request('POST', '/tax-codes', { body: { code: 'RED 10/%', rate: 0.1, taxable: true } });
      expect([created.status, created.headers.get('location')]).toEqual([201, '/tax-codes/RED%2010%2F%25']);
    });

    it('200: changes only the given fields, ETag moves; a no-op records nothing', async () => {
      clock.advance(1000);
      const path = `/tax-codes/${encodeURIComponent('RED 10/%')}`;
      const response = await t.request('PUT', path, { headers: { 'if-match': '"1"' }, body: { rate: 0.14 } });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"2"');
      expect(response.body).toEqual({
        code: 'RED 10/%',
        rate: 0.14,
        taxable: true,
        description: null,
        createdAt: '2026-01-15T10:00:00.000Z',
        updatedAt: '2026-01-15T10:00:01.000Z',
      });
      const same = await t.request('PUT', path, { body: { rate: 0.14, taxable: true } });
      expect(same.status).toBe(200);
      expect(same.headers.get('etag')).toBe('"2"');
      const described = await t.request('PUT', path, { body: { description: 'Reduced', taxable: false } });
      expect(described.body).toMatchObject({ rate: 0.14, taxable: false, description: 'Reduced' });
      const cleared = await t.request('PUT', path, { body: { description: null } });
      expect(cleared.body.description).toBeNull();
      await expectReadModelMatchesStream('RED 10/%');
    });

    it('409 for a stale If-Match', async () => {
      expectProblem(await t.request('PUT', '/tax-codes/VAT25', { headers: { 'if-match': '"9"' }, body: { rate: 0.3 } }), 409, 'version-conflict');
    });

    it('422 for a bad rate or an unknown property (code is read-only here)', async () => {
      expectProblem(await t.request('PUT', '/tax-codes/VAT25', { body: { rate: 2 } }), 422, 'validation-failed', '/rate');
      expectProblem(await t.request('PUT', '/tax-codes/VAT25', { body: { code: 'VAT26' } }), 422, 'validation-failed', '/code');
    });

    it('404 for an unknown code and from another environment', async () => {
      expectProblem(await t.request('PUT', '/tax-codes/NOPE', { body: { rate: 0.1 } }), 404, 'not-found');
      expect((await t.request('POST', '/tax-codes', { body: { code: 'MINE', rate: 0.1, taxable: true } })).status).toBe(201);
      expectProblem(await otherEnvironment(t).request('PUT', '/tax-codes/MINE', { body: { rate: 0.2 } }), 404, 'not-found');
      expect((await t.request('GET', '/tax-codes/MINE')).body.rate).toBe(0.1);
    });

    it('401 and 403', async () => {
      expectProblem(await t.request('PUT', '/tax-codes/VAT25', { token: null, body: { rate: 0.1 } }), 401, 'unauthorized');
      expectProblem(await t.request('PUT', '/tax-codes/VAT25', { token: t.token([randomUUID()]), body: { rate: 0.1 } }), 403, 'forbidden-environment');
    });
  });

  describe('GET /tax-codes and /tax-codes/{code}', () => {
    it('404 for an unknown code and for another environment’s code', async () => {
      expectProblem(await t.request('GET', '/tax-codes/UNKNOWN'), 404, 'not-found');
      expectProblem(await otherEnvironment(t).request('GET', '/tax-codes/VAT25'), 404, 'not-found');
    });

    it('lists by code with keyset paging, scoped to the environment', async () => {
      const other = otherEnvironment(t);
      for (const code of ['D', 'B', 'A', 'C', 'E'])
        expect((await other.request('POST', '/tax-codes', { body: { code, rate: 0.1, taxable: true } })).status).toBe(201);
      const all = await other.request('GET', '/tax-codes');
      expect(all.status).toBe(200);
      expect(all.body.items.map((c: any) => c.code)).toEqual(['A', 'B', 'C', 'D', 'E']);
      expect(all.body.nextPageToken).toBeNull();
      const first = await other.request('GET', '/tax-codes?limit=3');
      expect(first.body.items.map((c: any) => c.code)).toEqual(['A', 'B', 'C']);
      const second = await other.request('GET', `/tax-codes?limit=3&pageToken=${first.body.nextPageToken}`);
      expect(second.body).toEqual({ items: [expect.objectContaining({ code: 'D' }), expect.objectContaining({ code: 'E' })], nextPageToken: null });
    });

    it('422 for a bad limit, page token or unknown parameter; 401 and 403', async () => {
      expectProblem(await t.request('GET', '/tax-codes?limit=0'), 422, 'validation-failed', '/query/limit');
      expectProblem(await t.request('GET', '/tax-codes?pageToken=x'), 422, 'validation-failed', '/query/pageToken');
      for (const forged of [{ code: 'a\u0000' }, { code: '' }, { code: 'x'.repeat(51) }, { code: 7 }, ['VAT25']]) {
        const token = Buffer.from(JSON.stringify(forged)).toString('base64url');
        expectProblem(await t.request('GET', `/tax-codes?pageToken=${token}`), 422, 'validation-failed', '/query/pageToken');
      }
      expectProblem(await t.request('GET', '/tax-codes?code=A'), 422, 'validation-failed', '/query/code');
      expectProblem(await t.request('GET', '/tax-codes', { token: null }), 401, 'unauthorized');
      expectProblem(await t.request('GET', '/tax-codes/VAT25', { token: t.token([randomUUID()]) }), 403, 'forbidden-environment');
    });
  });
});
