import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '@billing/event-store';
import { INVOICING_PROJECTION } from '@billing/invoicing';
import { expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { customer, expectReadModelMatchesStream, otherEnvironment, pointersOf } from './invoicing-helpers';

/**
 * The worked invoice, by hand (rounding half away from zero at each step):
 *  A: 2.5 × 1999 = 4997.5 → 4998; 10% discount 499.8 → 500; amount 4498; 25.5% tax 1146.99 → 1147
 *  B: 2.5 × 1999 → 4998; no discount; amount 4998; 25.5% tax 1274.49 → 1274
 *  C: 2.5 × 1999 → 4998; fixed discount 998; amount 4000; no tax code → not taxed, 0
 *  totals: excl 4498 + 4998 + 4000 = 13496; vat 1147 + 1274 = 2421; incl 15917
 */
const WORKED_ITEMS = [
  { quantity: 2.5, unitAmount: 1999, discount: { percentage: 10 }, taxCode: 'VAT255', title: 'Seats' },
  { quantity: 2.5, unitAmount: 1999, taxCode: 'VAT255', sku: 'SKU-B', periodStart: '2026-01-01', periodEnd: '2026-01-31' },
  { quantity: 2.5, unitAmount: 1999, discount: { amount: 998 }, description: 'Setup' },
];
const VAT255 = { taxable: true, taxCode: 'VAT255', taxRate: 0.255 };
const NO_TAX = { taxable: false, taxCode: null, taxRate: 0 };

describe('Invoices over HTTP', () => {
  let t: TestApp;
  const clock = new FakeClock(new Date('2026-01-15T10:00:00.000Z'));

  beforeAll(async () => {
    t = await startTestApp({ clock });
    expect((await t.request('POST', '/tax-codes', { body: { code: 'VAT255', rate: 0.255, taxable: true } })).status).toBe(201);
    expect((await t.request('POST', '/tax-codes', { body: { code: 'EXEMPT', rate: 0.24, taxable: false } })).status).toBe(201);
  });
  afterAll(() => t.close());

  async function createDraft(body: Record<string, unknown> = {}, env?: { environment: string; token: string }) {
    const response = await t.request('POST', '/invoices', {
      ...env,
      body: { customer: customer(), currency: 'eur', date: '2026-01-15', dueDate: '2026-01-29', ...body },
    });
    expect(response.status).toBe(201);
    return response;
  }
  async function bookedWorkedInvoice() {
    const draft = await createDraft({ items: WORKED_ITEMS });
    const booked = await t.request('PUT', `/invoices/${draft.body.id}/book`, { body: { date: '2026-01-16' } });
    expect(booked.status).toBe(200);
    return booked.body;
  }

  describe('POST /invoices', () => {
    it('201: creates a draft with exact figures for the worked invoice', async () => {
      const cust = customer();
      const response = await t.request('POST', '/invoices', {
        body: { customer: cust, currency: 'eur', date: '2026-01-15', dueDate: '2026-01-29', memo: 'January', items: WORKED_ITEMS },
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('etag')).toBe('"1"');
      const id = response.body.id;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get('location')).toBe(`/invoices/${id}`);
      expect(response.body).toEqual({
        id,
        handle: null,
        hostedInvoiceUrl: null,
        memo: 'January',
        status: 'draft',
        type: 'invoice',
        settlementStatus: 'not_settled',
        date: '2026-01-15',
        dueDate: '2026-01-29',
        currency: 'EUR',
        createdAt: '2026-01-15T10:00:00.000Z',
        updatedAt: null,
        customer: { ...cust, email: null },
        items: [
          {
            id: expect.any(String),
            sku: null,
            title: 'Seats',
            description: null,
            periodStart: null,
            periodEnd: null,
            quantity: 2.5,
            unitAmount: 1999,
            amount: 4498,
            taxAmount: 1147,
            tax: VAT255,
            discount: { percentage: 10, amount: 500 },
          },
          {
            id: expect.any(String),
            sku: 'SKU-B',
            title: null,
            description: null,
            periodStart: '2026-01-01',
            periodEnd: '2026-01-31',
            quantity: 2.5,
            unitAmount: 1999,
            amount: 4998,
            taxAmount: 1274,
            tax: VAT255,
            discount: { amount: 0 },
          },
          {
            id: expect.any(String),
            sku: null,
            title: null,
            description: 'Setup',
            periodStart: null,
            periodEnd: null,
            quantity: 2.5,
            unitAmount: 1999,
            amount: 4000,
            taxAmount: 0,
            tax: NO_TAX,
            discount: { amount: 998 },
          },
        ],
        discounts: [],
        settlements: [],
        totalExclVat: 13496,
        totalVat: 2421,
        totalInclVat: 15917,
        totalDue: 15917,
        uncollectible: false,
        creditedAmount: 0,
        creditNote: null,
        creditApplied: 0,
      });
      const get = await expectReadModelMatchesStream(t, id);
      expect(get).toEqual(response.body);
    });

    it('a tax code that is not taxable gives 0 tax whatever its rate', async () => {
      const response = await createDraft({ items: [{ quantity: 1, unitAmount: 1000, taxCode: 'EXEMPT' }] });
      expect(response.body.items[0]).toMatchObject({ amount: 1000, taxAmount: 0, tax: { taxable: false, taxCode: 'EXEMPT', taxRate: 0.24 } });
      expect(response.body).toMatchObject({ totalExclVat: 1000, totalVat: 0, totalInclVat: 1000 });
    });

    it('defaults the date to today and accepts no lines', async () => {
      const response = await t.request('POST', '/invoices', { body: { customer: { id: randomUUID(), handle: null, name: null }, currency: 'USD' } });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        date: '2026-01-15',
        dueDate: null,
        memo: null,
        currency: 'USD',
        items: [],
        customer: {
          handle: null,
          name: null,
          billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null },
        },
        settlementStatus: 'settled',
        totalInclVat: 0,
      });
    });

    it.each([
      ['an id', { id: randomUUID() }, '/id'],
      ['a handle', { handle: 'INV-1' }, '/handle'],
      ['totals', { totalDue: 1 }, '/totalDue'],
      ['a status', { status: 'booked' }, '/status'],
      ['a line amount', { items: [{ quantity: 1, unitAmount: 1, amount: 1 }] }, '/items/0/amount'],
      ['a customer field', { customer: { id: randomUUID(), handle: null, name: null, phone: '+358 1' } }, '/customer/phone'],
    ])('422 for read-only or unknown properties: %s', async (_label, extra, pointer) => {
      const response = await t.request('POST', '/invoices', { body: { customer: customer(), currency: 'EUR', ...extra } });
      expectProblem(response, 422, 'validation-failed', pointer);
    });

    it('an inline customer may carry an e-mail: shown on the draft, frozen by booking, in the log; absent or null is none', async () => {
      const email = 'billing@one-off.example';
      const draft = await createDraft({ customer: { ...customer(), email }, items: [{ quantity: 1, unitAmount: 1000 }] });
      expect(draft.body.customer.email).toBe(email);
      const booked = await t.request('PUT', `/invoices/${draft.body.id}/book`, { body: {} });
      expect(booked.body.customer).toEqual(draft.body.customer);
      expect((await t.request('GET', `/invoices/${draft.body.id}`)).body.customer.email).toBe(email);
      expect((await createDraft({ customer: { ...customer(), email: null } })).body.customer.email).toBeNull();
      expect((await createDraft()).body.customer.email).toBeNull();
    });

    it.each(['nope@', 'a b@c.de', 'a@b', 42, `${'x'.repeat(250)}@c.de`])(
      '422 at /customer/email for the inline e-mail %j (the customer record’s rules)',
      async (email) => {
        const response = await t.request('POST', '/invoices', { body: { customer: { ...customer(), email }, currency: 'EUR' } });
        expectProblem(response, 422, 'validation-failed', '/customer/email');
        expect(pointersOf(response)).toEqual(['/customer/email']);
      },
    );

    it('422 without a customer id or with a non-uuid one', async () => {
      expectProblem(
        await t.request('POST', '/invoices', { body: { customer: { handle: null, name: null }, currency: 'EUR' } }),
        422,
        'validation-failed',
        '/customer/id',
      );
      expectProblem(
        await t.request('POST', '/invoices', { body: { customer: { id: 'c-1', handle: null, name: null }, currency: 'EUR' } }),
        422,
        'validation-failed',
        '/customer/id',
      );
    });

    it('422 when the customer lacks handle or name (required, though either may be null)', async () => {
      const post = (cust: unknown) => t.request('POST', '/invoices', { body: { customer: cust, currency: 'EUR' } });
      const id = randomUUID();
      const neither = await post({ id });
      expectProblem(neither, 422, 'validation-failed');
      expect(pointersOf(neither)).toEqual(['/customer/handle', '/customer/name']);
      expectProblem(await post({ id, handle: 'c-1' }), 422, 'validation-failed', '/customer/name');
      expectProblem(await post({ id, name: 'Acme' }), 422, 'validation-failed', '/customer/handle');
      expectProblem(await post({ id, handle: 5, name: null }), 422, 'validation-failed', '/customer/handle');
      const nothing = await post({});
      expectProblem(nothing, 422, 'validation-failed');
      expect(pointersOf(nothing)).toEqual(['/customer/id', '/customer/handle', '/customer/name']);
      const nulls = await post({ id, handle: null, name: null });
      expect(nulls.status).toBe(201);
      expect(nulls.body.customer).toMatchObject({ id, handle: null, name: null });
    });

    it.each([
      ['an empty array', [[]]],
      ['an array holding a line', [[{ quantity: 1, unitAmount: 100 }]]],
      ['null', [{ quantity: 1, unitAmount: 100 }, null]],
      ['a number', [{ quantity: 1, unitAmount: 100 }, 5]],
      ['a string', ['line']],
    ])('422 at /items/<i> for a line that is %s, never a 500', async (_label, items) => {
      const index = String(items.findIndex((item) => item === null || typeof item !== 'object' || Array.isArray(item)));
      const created = await t.request('POST', '/invoices', { body: { customer: customer(), currency: 'EUR', items } });
      expectProblem(created, 422, 'validation-failed', `/items/${index}`);
      const draft = await createDraft();
      const updated = await t.request('PUT', `/invoices/${draft.body.id}`, { body: { date: '2026-01-15', currency: null, items } });
      expectProblem(updated, 422, 'validation-failed', `/items/${index}`);
    });

    it('422 unsupported-currency for an unknown code', async () => {
      expectProblem(await t.request('POST', '/invoices', { body: { customer: customer(), currency: 'XYZ' } }), 422, 'unsupported-currency', '/currency');
    });

    it('422 unknown-tax-code at the line', async () => {
      const response = await t.request('POST', '/invoices', {
        body: {
          customer: customer(),
          currency: 'EUR',
          items: [
            { quantity: 1, unitAmount: 1 },
            { quantity: 1, unitAmount: 1, taxCode: 'NOPE' },
          ],
        },
      });
      expectProblem(response, 422, 'unknown-tax-code', '/items/1/taxCode');
    });

    it('401 without a token, 403 for an environment the token cannot access', async () => {
      expectProblem(await t.request('POST', '/invoices', { token: null, body: { customer: customer(), currency: 'EUR' } }), 401, 'unauthorized');
      expectProblem(
        await t.request('POST', '/invoices', { environment: randomUUID(), body: { customer: customer(), currency: 'EUR' } }),
        403,
        'forbidden-environment',
      );
    });
  });

  describe('GET /invoices/{invoiceId}', () => {
    it('200 with the invoice and its ETag', async () => {
      const draft = await createDraft({ items: WORKED_ITEMS });
      const response = await t.request('GET', `/invoices/${draft.body.id}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"1"');
      expect(response.body).toEqual(draft.body);
    });

    it('404 for an unknown id and for a non-uuid', async () => {
      expectProblem(await t.request('GET', `/invoices/${randomUUID()}`), 404, 'not-found');
      expectProblem(await t.request('GET', `/invoices/not-a-uuid`), 404, 'not-found');
    });

    it('404 from another environment, with that environment’s own token', async () => {
      const draft = await createDraft();
      const other = otherEnvironment(t);
      const response = await other.request('GET', `/invoices/${draft.body.id}`);
      expectProblem(response, 404, 'not-found');
      expect(response.text).not.toContain('Acme');
    });

    it('401 and 403', async () => {
      const draft = await createDraft();
      expectProblem(await t.request('GET', `/invoices/${draft.body.id}`, { token: null }), 401, 'unauthorized');
      expectProblem(await t.request('GET', `/invoices/${draft.body.id}`, { token: t.token([randomUUID()]) }), 403, 'forbidden-environment');
    });
  });

  describe('PUT /invoices/{invoiceId}', () => {
    it('200: replaces lines, keeps a line with a known id, recomputes totals; ETag moves', async () => {
      const draft = await createDraft({ items: WORKED_ITEMS });
      const [a, , c] = draft.body.items;
      clock.advance(60_000);
      const response = await t.request('PUT', `/invoices/${draft.body.id}`, {
        headers: { 'if-match': '"1"' },
        body: {
          date: '2026-01-20',
          currency: 'SEK',
          dueDate: null,
          items: [
            { id: c.id, quantity: 2.5, unitAmount: 1999, discount: { amount: 998 }, description: 'Setup' },
            { id: a.id, quantity: 1, unitAmount: 1000, taxCode: 'VAT255' },
            { quantity: 3, unitAmount: 333, discount: { percentage: 12.5 } },
          ],
        },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"2"');
      expect(response.body).toMatchObject({ date: '2026-01-20', currency: 'SEK', dueDate: null, updatedAt: '2026-01-15T10:01:00.000Z' });
      // c: 4000 (0 tax); a: 1000 + 255 tax; new: 999 − round(124.875)=125 → 874, no tax
      expect(response.body.items.map((i: any) => [i.id, i.amount, i.taxAmount])).toEqual([
        [c.id, 4000, 0],
        [a.id, 1000, 255],
        [expect.any(String), 874, 0],
      ]);
      expect(response.body.items[2].id).not.toBe(draft.body.items[1].id);
      expect(response.body.items[2].discount).toEqual({ percentage: 12.5, amount: 125 });
      expect(response.body).toMatchObject({ totalExclVat: 5874, totalVat: 255, totalInclVat: 6129, totalDue: 6129 });
      await expectReadModelMatchesStream(t, draft.body.id);
    });

    it('currency null keeps the currency; omitted items keep the lines; items null clears them', async () => {
      const draft = await createDraft({ items: WORKED_ITEMS });
      const kept = await t.request('PUT', `/invoices/${draft.body.id}`, { body: { date: '2026-01-15', currency: null } });
      expect(kept.status).toBe(200);
      expect(kept.body).toMatchObject({ currency: 'EUR', dueDate: '2026-01-29', totalInclVat: 15917 });
      expect(kept.body.items).toEqual(draft.body.items);
      const cleared = await t.request('PUT', `/invoices/${draft.body.id}`, { body: { date: '2026-01-15', currency: 'EUR', items: null } });
      expect(cleared.body).toMatchObject({ items: [], totalInclVat: 0 });
      await expectReadModelMatchesStream(t, draft.body.id);
    });

    describe('422 with pointers', () => {
      let id: string;
      beforeAll(async () => {
        id = (await createDraft()).body.id;
      });
      const put = (body: unknown) => t.request('PUT', `/invoices/${id}`, { body });

      it.each([
        ['an unknown property', { date: '2026-01-15', currency: 'EUR', memo: 'x' }, 'validation-failed', '/memo'],
        ['a read-only property', { date: '2026-01-15', currency: 'EUR', totalInclVat: 5 }, 'validation-failed', '/totalInclVat'],
        [
          'an unknown line property',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 1, taxAmount: 0 }] },
          'validation-failed',
          '/items/0/taxAmount',
        ],
        ['a missing date', { currency: 'EUR' }, 'validation-failed', '/date'],
        ['a missing currency', { date: '2026-01-15' }, 'validation-failed', '/currency'],
        ['a bad date', { date: '2026-02-30', currency: 'EUR' }, 'validation-failed', '/date'],
        ['a due date before the date', { date: '2026-01-15', currency: 'EUR', dueDate: '2026-01-14' }, 'validation-failed', '/dueDate'],
        [
          'quantity 1.23456',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1.23456, unitAmount: 100 }] },
          'too-many-decimals',
          '/items/0/quantity',
        ],
        ['a negative quantity', { date: '2026-01-15', currency: 'EUR', items: [{ quantity: -1, unitAmount: 100 }] }, 'validation-failed', '/items/0/quantity'],
        [
          'percentage 12.345',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 100, discount: { percentage: 12.345 } }] },
          'too-many-decimals',
          '/items/0/discount/percentage',
        ],
        [
          'a percentage above 100',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 100, discount: { percentage: 100.01 } }] },
          'validation-failed',
          '/items/0/discount/percentage',
        ],
        [
          'an unknown tax code',
          {
            date: '2026-01-15',
            currency: 'EUR',
            items: [
              { quantity: 1, unitAmount: 100 },
              { quantity: 1, unitAmount: 100, taxCode: 'vat255' },
            ],
          },
          'unknown-tax-code',
          '/items/1/taxCode',
        ],
        ['an unknown currency', { date: '2026-01-15', currency: 'ABC' }, 'unsupported-currency', '/currency'],
        [
          'a discount with both amount and percentage',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 100, discount: { amount: 1, percentage: 1 } }] },
          'validation-failed',
          '/items/0/discount',
        ],
        [
          'a discount with neither',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 100, discount: {} }] },
          'validation-failed',
          '/items/0/discount',
        ],
        [
          'a discount above the line amount',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 100, discount: { amount: 101 } }] },
          'discount-exceeds-line-amount',
          '/items/0/discount/amount',
        ],
        [
          'a fractional unitAmount',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 1.5 }] },
          'validation-failed',
          '/items/0/unitAmount',
        ],
        [
          'a unitAmount beyond int32',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 2147483648 }] },
          'validation-failed',
          '/items/0/unitAmount',
        ],
        [
          'a line id that is not a line of the invoice',
          { date: '2026-01-15', currency: 'EUR', items: [{ id: randomUUID(), quantity: 1, unitAmount: 1 }] },
          'validation-failed',
          '/items/0/id',
        ],
        [
          'a quantity as a string',
          { date: '2026-01-15', currency: 'EUR', items: [{ quantity: '1', unitAmount: 1 }] },
          'validation-failed',
          '/items/0/quantity',
        ],
      ])('%s', async (_label, body, type, pointer) => {
        const response = await put(body);
        expectProblem(response, 422, type, pointer);
        expect(pointersOf(response)).toEqual([pointer]);
      });

      it('a rejected update changes nothing', async () => {
        const response = await t.request('GET', `/invoices/${id}`);
        expect(response.headers.get('etag')).toBe('"1"');
      });
    });

    it('409 invoice-not-draft when the invoice is booked', async () => {
      const booked = await bookedWorkedInvoice();
      expectProblem(await t.request('PUT', `/invoices/${booked.id}`, { body: { date: '2026-01-15', currency: 'EUR' } }), 409, 'invoice-not-draft');
      expectProblem(
        await t.request('PUT', `/invoices/${booked.id}`, {
          body: { date: '2026-01-15', currency: 'EUR', items: [{ quantity: 1, unitAmount: 1, taxCode: 'NOPE' }] },
        }),
        409,
        'invoice-not-draft',
      );
    });

    it('409 version-conflict for a stale If-Match; 422 for a malformed one', async () => {
      const draft = await createDraft();
      const first = await t.request('PUT', `/invoices/${draft.body.id}`, { headers: { 'if-match': '"1"' }, body: { date: '2026-01-16', currency: null } });
      expect(first.status).toBe(200);
      expectProblem(
        await t.request('PUT', `/invoices/${draft.body.id}`, { headers: { 'if-match': '"1"' }, body: { date: '2026-01-17', currency: null } }),
        409,
        'version-conflict',
      );
      expectProblem(
        await t.request('PUT', `/invoices/${draft.body.id}`, { headers: { 'if-match': 'abc' }, body: { date: '2026-01-17', currency: null } }),
        422,
        'validation-failed',
        '/headers/if-match',
      );
      expect((await t.request('GET', `/invoices/${draft.body.id}`)).body.date).toBe('2026-01-16');
    });

    it('409 for concurrent writers from the same version: exactly one wins', async () => {
      const draft = await createDraft();
      const responses = await Promise.all(
        ['2026-01-16', '2026-01-17', '2026-01-18', '2026-01-19'].map((date) =>
          t.request('PUT', `/invoices/${draft.body.id}`, { headers: { 'if-match': '"1"' }, body: { date, currency: null } }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      await expectReadModelMatchesStream(t, draft.body.id);
    });

    it('404 for an unknown invoice and from another environment', async () => {
      expectProblem(await t.request('PUT', `/invoices/${randomUUID()}`, { body: { date: '2026-01-15', currency: 'EUR' } }), 404, 'not-found');
      const draft = await createDraft();
      const other = otherEnvironment(t);
      expectProblem(await other.request('PUT', `/invoices/${draft.body.id}`, { body: { date: '2026-01-15', currency: 'EUR' } }), 404, 'not-found');
      expect((await t.request('GET', `/invoices/${draft.body.id}`)).headers.get('etag')).toBe('"1"');
    });

    it('401 without a token, 403 with a token for another environment', async () => {
      const draft = await createDraft();
      const body = { date: '2026-01-15', currency: 'EUR' };
      expectProblem(await t.request('PUT', `/invoices/${draft.body.id}`, { token: null, body }), 401, 'unauthorized');
      expectProblem(await t.request('PUT', `/invoices/${draft.body.id}`, { token: t.token([randomUUID()]), body }), 403, 'forbidden-environment');
    });
  });

  describe('PUT /invoices/{invoiceId}/book', () => {
    it('200: books with a handle, freezes the figures, keeps the booked tax rate', async () => {
      await t.request('POST', '/tax-codes', { body: { code: 'MOVING', rate: 0.1, taxable: true } });
      const draft = await createDraft({ items: [{ quantity: 1, unitAmount: 1000, taxCode: 'MOVING' }] });
      const booked = await t.request('PUT', `/invoices/${draft.body.id}/book`, { headers: { 'if-match': '"1"' } });
      expect(booked.status).toBe(200);
      expect(booked.headers.get('etag')).toBe('"2"');
      expect(booked.body).toMatchObject({ status: 'booked', handle: expect.stringMatching(/^INV-\d{6}$/), date: '2026-01-15', totalInclVat: 1100 });
      expect((await t.request('PUT', '/tax-codes/MOVING', { body: { rate: 0.2 } })).status).toBe(200);
      const after = await expectReadModelMatchesStream(t, draft.body.id);
      expect(after.items[0]).toMatchObject({ taxAmount: 100, tax: { taxCode: 'MOVING', taxRate: 0.1 } });
      const fresh = await createDraft({ items: [{ quantity: 1, unitAmount: 1000, taxCode: 'MOVING' }] });
      expect(fresh.body.items[0]).toMatchObject({ taxAmount: 200, tax: { taxRate: 0.2 } });
    });

    it('without a date keeps the draft’s date, even when it is in the past and already due', async () => {
      const draft = await createDraft({ date: '2026-01-02', dueDate: '2026-01-09', items: [{ quantity: 1, unitAmount: 100 }] });
      clock.set('2026-02-20T09:00:00.000Z');
      const noBody = await t.request('PUT', `/invoices/${draft.body.id}/book`);
      clock.set('2026-01-15T10:00:00.000Z');
      expect(noBody.status).toBe(200);
      expect(noBody.body).toMatchObject({ status: 'booked', date: '2026-01-02', dueDate: '2026-01-09', updatedAt: '2026-02-20T09:00:00.000Z' });
      const other = await createDraft({ date: '2026-01-03', dueDate: '2026-01-10', items: [{ quantity: 1, unitAmount: 100 }] });
      const nullDate = await t.request('PUT', `/invoices/${other.body.id}/book`, { body: { date: null } });
      expect(nullDate.body).toMatchObject({ status: 'booked', date: '2026-01-03' });
      await expectReadModelMatchesStream(t, draft.body.id);
    });

    it('drafts show and book at the tax code’s current rate; booked invoices keep theirs; copies take today’s, credit notes the credited invoice’s', async () => {
      expect((await t.request('POST', '/tax-codes', { body: { code: 'STD', rate: 0.25, taxable: true } })).status).toBe(201);
      const line = { quantity: 1, unitAmount: 1000, taxCode: 'STD' };
      const bookedEarlier = await t.request('PUT', `/invoices/${(await createDraft({ items: [line] })).body.id}/book`);
      expect(bookedEarlier.body).toMatchObject({ totalVat: 250, totalInclVat: 1250 });
      const draft = (await createDraft({ items: [line, { quantity: 1, unitAmount: 500 }] })).body;
      expect(draft).toMatchObject({ totalVat: 250, totalInclVat: 1750 });

      expect((await t.request('PUT', '/tax-codes/STD', { body: { rate: 0.2 } })).status).toBe(200);
      const shown = await t.request('GET', `/invoices/${draft.id}`);
      expect(shown.body.items[0]).toMatchObject({ amount: 1000, taxAmount: 200, tax: { taxable: true, taxCode: 'STD', taxRate: 0.2 } });
      expect(shown.body).toMatchObject({ totalExclVat: 1500, totalVat: 200, totalInclVat: 1700, totalDue: 1700 });
      expect(shown.headers.get('etag')).toBe('"1"');
      const listed = (await t.request('GET', '/invoices?status=draft&limit=100')).body.items.find((i: any) => i.id === draft.id);
      expect(listed).toMatchObject({ totalVat: 200, totalInclVat: 1700 });
      await expectReadModelMatchesStream(t, draft.id);

      const booked = await t.request('PUT', `/invoices/${draft.id}/book`);
      expect(booked.body).toMatchObject({ status: 'booked', totalVat: 200, totalInclVat: 1700 });
      expect(booked.body.items[0].tax.taxRate).toBe(0.2);
      expect(await expectReadModelMatchesStream(t, bookedEarlier.body.id)).toMatchObject({ totalVat: 250, totalInclVat: 1250 });

      const copy = await t.request('POST', `/invoices/${bookedEarlier.body.id}/duplicate`);
      expect(copy.body).toMatchObject({ type: 'invoice', totalVat: 200, totalInclVat: 1200 });
      const credit = await t.request('POST', `/invoices/${bookedEarlier.body.id}/duplicate`, { body: { reverse: true } });
      expect(credit.body).toMatchObject({ type: 'credit_note', totalVat: -250, totalInclVat: -1250 });

      // a later change reaches the booked ones no more, the remaining drafts again
      expect((await t.request('PUT', '/tax-codes/STD', { body: { taxable: false } })).status).toBe(200);
      expect((await t.request('GET', `/invoices/${draft.id}`)).body).toMatchObject({ totalVat: 200 });
      expect((await t.request('GET', `/invoices/${copy.body.id}`)).body).toMatchObject({ totalVat: 0, totalInclVat: 1000 });
      expect((await t.request('GET', `/invoices/${credit.body.id}`)).body).toMatchObject({ totalVat: -250 });
      await expectReadModelMatchesStream(t, copy.body.id);
    });

    it('409 invoice-already-booked, invoice-has-no-lines, invoice-total-negative (at /items), and none consumes a number', async () => {
      const other = otherEnvironment(t);
      const env = { environment: other.environmentId, token: other.token };
      const first = await createDraft({ items: [{ quantity: 1, unitAmount: 1 }] }, env);
      expect((await other.request('PUT', `/invoices/${first.body.id}/book`)).body.handle).toBe('INV-000001');
      expectProblem(await other.request('PUT', `/invoices/${first.body.id}/book`), 409, 'invoice-already-booked');
      const empty = await createDraft({}, env);
      expectProblem(await other.request('PUT', `/invoices/${empty.body.id}/book`), 409, 'invoice-has-no-lines');
      const negative = await createDraft(
        {
          items: [
            { quantity: 1, unitAmount: 1000 },
            { title: 'Goodwill', quantity: 1, unitAmount: -1500 },
          ],
        },
        env,
      );
      expect(negative.body.totalInclVat).toBe(-500);
      expectProblem(await other.request('PUT', `/invoices/${negative.body.id}/book`), 409, 'invoice-total-negative', '/items');
      expect((await other.request('GET', `/invoices/${negative.body.id}`)).body.status).toBe('draft');
      const zero = await createDraft(
        {
          items: [
            { quantity: 1, unitAmount: 1000 },
            { quantity: 1, unitAmount: -1000 },
          ],
        },
        env,
      );
      const second = await createDraft({ items: [{ quantity: 1, unitAmount: 1 }] }, env);
      expectProblem(await other.request('PUT', `/invoices/${second.body.id}/book`, { headers: { 'if-match': '"7"' } }), 409, 'version-conflict');
      expect((await other.request('PUT', `/invoices/${second.body.id}/book`)).body.handle).toBe('INV-000002');
      // A total of 0 bills nothing but owes nothing either: it books.
      expect((await other.request('PUT', `/invoices/${zero.body.id}/book`)).body).toMatchObject({ handle: 'INV-000003', totalInclVat: 0 });
    });

    it('422 for a bad booking date or an unknown property; 404 unknown and cross-environment', async () => {
      const draft = await createDraft({ items: [{ quantity: 1, unitAmount: 1 }] });
      expectProblem(await t.request('PUT', `/invoices/${draft.body.id}/book`, { body: { date: '15.01.2026' } }), 422, 'validation-failed', '/date');
      const late = await t.request('PUT', `/invoices/${draft.body.id}/book`, { body: { date: '2026-01-30' } });
      expectProblem(late, 422, 'validation-failed', '/date');
      expect(late.body.errors[0].detail).toContain('due date 2026-01-29');
      expectProblem(await t.request('PUT', `/invoices/${draft.body.id}/book`, { body: { handle: 'INV-9' } }), 422, 'validation-failed', '/handle');
      expectProblem(await t.request('PUT', `/invoices/${randomUUID()}/book`), 404, 'not-found');
      expectProblem(await otherEnvironment(t).request('PUT', `/invoices/${draft.body.id}/book`), 404, 'not-found');
      expectProblem(await t.request('PUT', `/invoices/${draft.body.id}/book`, { token: null }), 401, 'unauthorized');
      expectProblem(await t.request('PUT', `/invoices/${draft.body.id}/book`, { token: t.token([randomUUID()]) }), 403, 'forbidden-environment');
      expect((await t.request('GET', `/invoices/${draft.body.id}`)).body.status).toBe('draft');
    });

    it('10 concurrent bookings get distinct, gapless handles INV-000001..INV-000010', async () => {
      const other = otherEnvironment(t);
      const env = { environment: other.environmentId, token: other.token };
      const drafts = [];
      for (let i = 0; i < 10; i++) drafts.push((await createDraft({ items: [{ quantity: 1, unitAmount: 100 + i }] }, env)).body.id);
      const responses = await Promise.all(drafts.map((id) => other.request('PUT', `/invoices/${id}/book`)));
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
      const handles = responses.map((r) => r.body.handle).sort();
      expect(handles).toEqual(Array.from({ length: 10 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
      for (const id of drafts) await expectReadModelMatchesStream(t, id, other.environmentId, other.token);
    });

    it('concurrent bookings of the same invoice: one wins, the losers roll their number back', async () => {
      const other = otherEnvironment(t);
      const env = { environment: other.environmentId, token: other.token };
      const draft = await createDraft({ items: [{ quantity: 1, unitAmount: 1 }] }, env);
      const responses = await Promise.all(Array.from({ length: 5 }, () => other.request('PUT', `/invoices/${draft.body.id}/book`)));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
      expect(responses.find((r) => r.status === 200)!.body.handle).toBe('INV-000001');
      const next = await createDraft({ items: [{ quantity: 1, unitAmount: 1 }] }, env);
      expect((await other.request('PUT', `/invoices/${next.body.id}/book`)).body.handle).toBe('INV-000002');
    });
  });

  describe('POST /invoices/{invoiceId}/settlements', () => {
    it('issue 20 #10: a settlement (201) and a duplicate answer Location: the invoice with the settlement, the new invoice', async () => {
      const booked = await bookedWorkedInvoice();
      const settled = await t.request('POST', `/invoices/${booked.id}/settlements`, { body: { date: '2026-01-20', amount: 100 } });
      expect({ status: settled.status, location: settled.headers.get('location') }).toEqual({ status: 201, location: `/invoices/${booked.id}` });
      const copy = await t.request('POST', `/invoices/${booked.id}/duplicate`);
      expect({ status: copy.status, location: copy.headers.get('location') }).toEqual({ status: 200, location: `/invoices/${copy.body.id}` });
      expect((await t.request('GET', copy.headers.get('location')!)).body.id).toBe(copy.body.id);
    });

    it('201: settlements move settlementStatus and totalDue', async () => {
      const booked = await bookedWorkedInvoice();
      expect(booked).toMatchObject({ settlementStatus: 'not_settled', totalDue: 15917 });
      const first = await t.request('POST', `/invoices/${booked.id}/settlements`, { body: { date: '2026-01-20', amount: 10000, reference: 'pay-1' } });
      expect(first.status).toBe(201);
      expect(first.headers.get('etag')).toBe('"3"');
      expect(first.body).toMatchObject({
        settlementStatus: 'under_settled',
        totalDue: 5917,
        settlements: [{ date: '2026-01-20', amount: 10000, reference: 'pay-1', note: null }],
      });
      await expectReadModelMatchesStream(t, booked.id);
      const second = await t.request('POST', `/invoices/${booked.id}/settlements`, { body: { date: '2026-01-21', amount: 5917, note: 'rest' } });
      expect(second.body).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
      const third = await t.request('POST', `/invoices/${booked.id}/settlements`, { headers: { 'if-match': '"4"' }, body: { date: '2026-01-22', amount: 1 } });
      expect(third.body).toMatchObject({ settlementStatus: 'over_settled', totalDue: -1 });
      const refund = await t.request('POST', `/invoices/${booked.id}/settlements`, { body: { date: '2026-01-23', amount: -1 } });
      expect(refund.body).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
      expect(refund.body.settlements).toHaveLength(4);
      await expectReadModelMatchesStream(t, booked.id);
    });

    it('records the settlement status after the settlement on the event (webhooks emit invoice.settled from it)', async () => {
      const booked = await bookedWorkedInvoice();
      await t.request('POST', `/invoices/${booked.id}/settlements`, { body: { date: '2026-01-20', amount: 15917 } });
      const [row] = await t.dataSource.query(`select data from events where environment_id = $1 and stream_id = $2 and event_type = 'InvoiceSettlementAdded'`, [
        t.environmentId,
        booked.id,
      ]);
      expect(row.data).toMatchObject({ amount: 15917, settlementStatus: 'settled' });
    });

    it('409 on a draft, 422 for bad bodies, 404 elsewhere', async () => {
      const draft = await createDraft({ items: WORKED_ITEMS });
      expectProblem(await t.request('POST', `/invoices/${draft.body.id}/settlements`, { body: { date: '2026-01-20', amount: 1 } }), 409, 'invoice-not-booked');
      const booked = await bookedWorkedInvoice();
      const post = (body: unknown) => t.request('POST', `/invoices/${booked.id}/settlements`, { body });
      expectProblem(await post({ date: '2026-01-20', amount: 0 }), 422, 'validation-failed', '/amount');
      expectProblem(await post({ date: '2026-01-20', amount: 1.5 }), 422, 'validation-failed', '/amount');
      expectProblem(await post({ date: '2026-01-20', amount: Number.MAX_SAFE_INTEGER + 1 }), 422, 'amount-out-of-range', '/amount');
      expectProblem(await post({ amount: 1 }), 422, 'validation-failed', '/date');
      expectProblem(await post({ date: '2026-01-20', amount: 1, settlementStatus: 'settled' }), 422, 'validation-failed', '/settlementStatus');
      expectProblem(await post({ date: '2026-01-20', amount: 1, reference: 'x'.repeat(256) }), 422, 'validation-failed', '/reference');
      expectProblem(
        await t.request('POST', `/invoices/${booked.id}/settlements`, { headers: { 'if-match': '"1"' }, body: { date: '2026-01-20', amount: 1 } }),
        409,
        'version-conflict',
      );
      expectProblem(await t.request('POST', `/invoices/${randomUUID()}/settlements`, { body: { date: '2026-01-20', amount: 1 } }), 404, 'not-found');
      expectProblem(
        await otherEnvironment(t).request('POST', `/invoices/${booked.id}/settlements`, { body: { date: '2026-01-20', amount: 1 } }),
        404,
        'not-found',
      );
      expectProblem(
        await t.request('POST', `/invoices/${booked.id}/settlements`, { token: null, body: { date: '2026-01-20', amount: 1 } }),
        401,
        'unauthorized',
      );
      expectProblem(
        await t.request('POST', `/invoices/${booked.id}/settlements`, { token: t.token([randomUUID()]), body: { date: '2026-01-20', amount: 1 } }),
        403,
        'forbidden-environment',
      );
      expect((await t.request('GET', `/invoices/${booked.id}`)).body.settlements).toEqual([]);
    });
  });

  describe('POST /invoices/{invoiceId}/duplicate', () => {
    it('200 with the NEW draft: same lines with new ids, today, the same payment term', async () => {
      const booked = await bookedWorkedInvoice();
      clock.set('2026-02-01T08:00:00.000Z');
      const response = await t.request('POST', `/invoices/${booked.id}/duplicate`);
      clock.set('2026-01-15T10:00:00.000Z');
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBe('"1"');
      const copy = response.body;
      expect(copy.id).not.toBe(booked.id);
      expect(copy).toMatchObject({
        status: 'draft',
        type: 'invoice',
        handle: null,
        date: '2026-02-01',
        dueDate: '2026-02-14',
        currency: 'EUR',
        customer: booked.customer,
        createdAt: '2026-02-01T08:00:00.000Z',
        totalExclVat: 13496,
        totalVat: 2421,
        totalInclVat: 15917,
        settlements: [],
      });
      expect(copy.items.map(({ id, ...rest }: any) => rest)).toEqual(booked.items.map(({ id, ...rest }: any) => rest));
      expect(copy.items.every((item: any, i: number) => item.id !== booked.items[i].id)).toBe(true);
      await expectReadModelMatchesStream(t, copy.id);
      // the source records the duplication: version 3, figures unchanged
      const source = await expectReadModelMatchesStream(t, booked.id);
      expect(source).toEqual(booked);
      expect((await t.request('GET', `/invoices/${booked.id}`)).headers.get('etag')).toBe('"3"');
    });

    it('a draft can be duplicated with {"reverse": false}', async () => {
      const draft = await createDraft({ items: WORKED_ITEMS });
      const response = await t.request('POST', `/invoices/${draft.body.id}/duplicate`, { body: { reverse: false } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'draft', type: 'invoice', totalInclVat: 15917 });
    });

    it('reverse: a credit note negating every figure; booking it settles the original', async () => {
      const booked = await bookedWorkedInvoice();
      const reversed = await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } });
      expect(reversed.status).toBe(200);
      const creditNote = reversed.body;
      expect(creditNote).toMatchObject({
        type: 'credit_note',
        status: 'draft',
        handle: null,
        settlementStatus: 'not_settled',
        totalExclVat: -13496,
        totalVat: -2421,
        totalInclVat: -15917,
        totalDue: -15917,
      });
      expect(creditNote.items.map((i: any) => [i.quantity, i.unitAmount, i.amount, i.taxAmount, i.discount])).toEqual([
        [2.5, -1999, -4498, -1147, { percentage: 10, amount: -500 }],
        [2.5, -1999, -4998, -1274, { amount: 0 }],
        [2.5, -1999, -4000, 0, { amount: -998 }],
      ]);
      expect(creditNote.items.map((i: any) => i.tax)).toEqual([VAT255, VAT255, NO_TAX]);

      const bookedCn = await t.request('PUT', `/invoices/${creditNote.id}/book`, { body: { date: '2026-01-25' } });
      expect(bookedCn.status).toBe(200);
      // applied in full to the invoice it credits, the credit note is settled: nothing of it is left to pay out
      expect(bookedCn.body).toMatchObject({
        type: 'credit_note',
        status: 'booked',
        handle: expect.stringMatching(/^CN-\d{6}$/),
        date: '2026-01-25',
        settlementStatus: 'settled',
        totalDue: 0,
        settlements: [{ date: '2026-01-25', amount: -15917, reference: booked.handle, note: null }],
      });
      expect(
        await t.request('GET', `/invoices?type=credit_note&settlementStatus=not_settled&limit=100`).then((r) => r.body.items.map((i: any) => i.id)),
      ).not.toContain(creditNote.id);
      const original = await expectReadModelMatchesStream(t, booked.id);
      expect(original).toMatchObject({
        settlementStatus: 'settled',
        totalDue: 0,
        settlements: [{ date: '2026-01-25', amount: 15917, reference: bookedCn.body.handle, note: null }],
      });
      await expectReadModelMatchesStream(t, creditNote.id);
    });

    it('credit notes never together exceed the invoice: a second full credit note is a 409 naming what is still creditable', async () => {
      const booked = await bookedWorkedInvoice();
      const first = (await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } })).body;
      const second = (await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } })).body;
      expect((await t.request('PUT', `/invoices/${first.id}/book`)).status).toBe(200);
      const refused = await t.request('PUT', `/invoices/${second.id}/book`);
      expectProblem(refused, 409, 'credit-exceeds-invoice');
      expect(refused.body.detail).toContain('0 is still creditable');
      expect((await t.request('GET', `/invoices/${second.id}`)).body).toMatchObject({ status: 'draft', handle: null });
      const original = await expectReadModelMatchesStream(t, booked.id);
      expect(original).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
      expect(original.settlements).toHaveLength(1);
      // and once fully credited, no further credit note can even be drafted
      expectProblem(await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } }), 409, 'credit-exceeds-invoice');
    });

    it('partial credit notes: each is checked against what is still creditable, and the refusal names it', async () => {
      const draft = await createDraft({ items: [{ quantity: 1, unitAmount: 1000 }] });
      const booked = (await t.request('PUT', `/invoices/${draft.body.id}/book`)).body;
      const creditOf = async (unitAmount: number) => {
        const cn = (await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } })).body;
        const put = await t.request('PUT', `/invoices/${cn.id}`, { body: { date: cn.date, currency: null, items: [{ quantity: 1, unitAmount }] } });
        expect(put.status).toBe(200);
        return t.request('PUT', `/invoices/${cn.id}/book`);
      };
      expect((await creditOf(-600)).body).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
      const refused = await creditOf(-500);
      expectProblem(refused, 409, 'credit-exceeds-invoice');
      expect(refused.body.detail).toContain('400 is still creditable');
      expectProblem(await creditOf(100), 409, 'credit-note-wrong-sign');
      expect((await creditOf(-400)).status).toBe(200);
      expect(await expectReadModelMatchesStream(t, booked.id)).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
    });

    it('two full credit notes booked at the same time: exactly one passes', async () => {
      const booked = await bookedWorkedInvoice();
      const notes = [];
      for (let i = 0; i < 4; i++) notes.push((await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } })).body.id);
      const responses = await Promise.all(notes.map((id) => t.request('PUT', `/invoices/${id}/book`)));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      for (const refused of responses.filter((r) => r.status === 409))
        expect(['credit-exceeds-invoice', 'version-conflict']).toContain(refused.body.type.split('/').pop());
      const original = await expectReadModelMatchesStream(t, booked.id);
      expect(original).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
      expect(original.settlements).toHaveLength(1);
    });

    it('409 reversing a draft or a credit note; 422 for a non-boolean; 404 elsewhere', async () => {
      const draft = await createDraft({ items: WORKED_ITEMS });
      expectProblem(await t.request('POST', `/invoices/${draft.body.id}/duplicate`, { body: { reverse: true } }), 409, 'invoice-not-booked');
      const booked = await bookedWorkedInvoice();
      const cn = await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } });
      expectProblem(await t.request('POST', `/invoices/${cn.body.id}/duplicate`, { body: { reverse: true } }), 409, 'credit-note-cannot-be-reversed');
      expectProblem(await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: 'yes' } }), 422, 'validation-failed', '/reverse');
      expectProblem(await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: false, extra: 1 } }), 422, 'validation-failed', '/extra');
      expectProblem(await t.request('POST', `/invoices/${booked.id}/duplicate`, { headers: { 'if-match': '"1"' } }), 409, 'version-conflict');
      expectProblem(await t.request('POST', `/invoices/${randomUUID()}/duplicate`), 404, 'not-found');
      expectProblem(await otherEnvironment(t).request('POST', `/invoices/${booked.id}/duplicate`), 404, 'not-found');
      expectProblem(await t.request('POST', `/invoices/${booked.id}/duplicate`, { token: null }), 401, 'unauthorized');
      expectProblem(await t.request('POST', `/invoices/${booked.id}/duplicate`, { token: t.token([randomUUID()]) }), 403, 'forbidden-environment');
    });
  });

  describe('GET /invoices', () => {
    const other = () => listEnv;
    let listEnv: ReturnType<typeof otherEnvironment>;
    const ids: string[] = [];
    let customerA: string;

    beforeAll(async () => {
      listEnv = otherEnvironment(t);
      const env = { environment: listEnv.environmentId, token: listEnv.token };
      customerA = randomUUID();
      for (let i = 0; i < 5; i++) {
        clock.set(`2026-03-0${i + 1}T12:00:00.000Z`);
        const cust = i % 2 === 0 ? { ...customer(), id: customerA } : customer();
        ids.push((await createDraft({ customer: cust, date: `2026-03-0${i + 1}`, dueDate: null, items: [{ quantity: 1, unitAmount: 100 }] }, env)).body.id);
      }
      // two invoices created at the same instant: the id breaks the tie
      clock.set('2026-03-06T12:00:00.000Z');
      for (let i = 0; i < 2; i++) ids.push((await createDraft({ date: '2026-03-06', dueDate: null }, env)).body.id);
      clock.set('2026-01-15T10:00:00.000Z');
      expect((await listEnv.request('PUT', `/invoices/${ids[0]}/book`)).status).toBe(200);
      expect((await listEnv.request('PUT', `/invoices/${ids[1]}/book`)).status).toBe(200);
      expect((await listEnv.request('POST', `/invoices/${ids[1]}/settlements`, { body: { date: '2026-03-10', amount: 100 } })).status).toBe(201);
    });

    const newestFirst = () => [...ids.slice(5).sort().reverse(), ids[4], ids[3], ids[2], ids[1], ids[0]];

    it('200 newest first with the invoices less their lines and settlements, default limit 20, nextPageToken null on the last page', async () => {
      const response = await other().request('GET', '/invoices');
      expect(response.status).toBe(200);
      expect(response.body.items.map((i: any) => i.id)).toEqual(newestFirst());
      expect(response.body.nextPageToken).toBeNull();
      const { items: lines, settlements, hostedInvoiceUrl, ...summary } = (await other().request('GET', `/invoices/${ids[1]}`)).body;
      // A list hands out no hosted page links.
      expect(hostedInvoiceUrl).toMatch(/\/i\/[A-Za-z0-9_-]{86}$/);
      expect(lines).toHaveLength(1);
      expect(settlements).toHaveLength(1);
      expect(response.body.items[5]).toEqual(summary);
    });

    it('pages with limit and pageToken without skipping or repeating', async () => {
      const seen: string[] = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const query: string = token ? `?limit=2&pageToken=${token}` : '?limit=2';
        const response = await other().request('GET', `/invoices${query}`);
        expect(response.status).toBe(200);
        expect(response.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...response.body.items.map((i: any) => i.id));
        token = response.body.nextPageToken;
        pages++;
      } while (token);
      expect(pages).toBe(4);
      expect(seen).toEqual(newestFirst());
    });

    it('filters by status, type, settlementStatus and customerId (combined with and)', async () => {
      const idsOf = async (query: string) => (await other().request('GET', `/invoices?${query}`)).body.items.map((i: any) => i.id);
      expect(await idsOf('status=booked')).toEqual([ids[1], ids[0]]);
      expect(await idsOf('status=draft')).toEqual(newestFirst().slice(0, 5));
      expect(await idsOf('type=credit_note')).toEqual([]);
      expect(await idsOf('settlementStatus=settled')).toEqual([...ids.slice(5).sort().reverse(), ids[1]]);
      expect(await idsOf('settlementStatus=not_settled')).toEqual([ids[4], ids[3], ids[2], ids[0]]);
      expect(await idsOf(`customerId=${customerA}`)).toEqual([ids[4], ids[2], ids[0]]);
      expect(await idsOf(`customerId=${customerA}&status=booked`)).toEqual([ids[0]]);
    });

    it('never lists another environment’s invoices', async () => {
      const mine = (await t.request('GET', '/invoices?limit=100')).body.items.map((i: any) => i.id);
      expect(mine.some((id: string) => ids.includes(id))).toBe(false);
    });

    it.each([
      ['limit=0', '/query/limit'],
      ['limit=101', '/query/limit'],
      ['limit=abc', '/query/limit'],
      ['pageToken=garbage', '/query/pageToken'],
      ['status=open', '/query/status'],
      ['type=receipt', '/query/type'],
      ['settlementStatus=paid', '/query/settlementStatus'],
      ['customerId=c-1', '/query/customerId'],
      ['sort=id', '/query/sort'],
    ])('422 for %s', async (query, pointer) => {
      expectProblem(await other().request('GET', `/invoices?${query}`), 422, 'validation-failed', pointer);
    });

    it.each([
      ['a bare number as date', { createdAt: '1', id: randomUUID() }],
      ['a 30 February', { createdAt: '2024-02-30T00:00:00.000Z', id: randomUUID() }],
      ['a date without time', { createdAt: '2024-02-01', id: randomUUID() }],
      ['a year beyond Postgres', { createdAt: '+275760-09-13T00:00:00.000Z', id: randomUUID() }],
      ['a non-uuid id', { createdAt: '2024-02-01T00:00:00.000Z', id: 'x' }],
      ['no id', { createdAt: '2024-02-01T00:00:00.000Z' }],
    ])('422 at /query/pageToken for a forged token with %s, never a 500', async (_label, key) => {
      const token = Buffer.from(JSON.stringify(key)).toString('base64url');
      expectProblem(await other().request('GET', `/invoices?pageToken=${token}`), 422, 'validation-failed', '/query/pageToken');
    });

    it('401 and 403', async () => {
      expectProblem(await t.request('GET', '/invoices', { token: null }), 401, 'unauthorized');
      expectProblem(await t.request('GET', '/invoices', { token: t.token([randomUUID()]) }), 403, 'forbidden-environment');
    });
  });

  describe('nulls only where the interface allows them', () => {
    /** Paths (array indexes as []) of every null in a JSON value. */
    const nullPaths = (value: unknown, path = ''): string[] =>
      value === null
        ? [path]
        : Array.isArray(value)
          ? value.flatMap((item) => nullPaths(item, `${path}[]`))
          : typeof value === 'object' && value !== undefined
            ? Object.entries(value as object).flatMap(([key, item]) => nullPaths(item, path ? `${path}.${key}` : key))
            : [];
    /** The members INTERFACE.md marks nullable in InvoiceDetail and what it contains. */
    const NULLABLE = new Set([
      'handle',
      'memo',
      'dueDate',
      'currency',
      'updatedAt',
      'items',
      'settlements',
      'customer.handle',
      'customer.name',
      // null when the inline customer gave none (or the record has none)
      'customer.email',
      ...['street1', 'street2', 'postalCode', 'city', 'county', 'country', 'state'].map((field) => `customer.billingAddress.${field}`),
      ...['sku', 'title', 'description', 'periodStart', 'periodEnd', 'tax.taxCode'].map((field) => `items[].${field}`),
      'settlements[].reference',
      'settlements[].note',
      // null unless a credit note was issued with a disposition (POST /invoices/{id}/credit-notes)
      'creditNote',
      // null on a draft: it has no hosted page
      'hostedInvoiceUrl',
      // a draft's coupons (README: Coupons and promotion codes): a promotion code, the other kind of discount, all products
      ...['promotionCodeId', 'percentOff', 'amountOff', 'appliesTo'].map((field) => `discounts[].${field}`),
    ]);

    it('an invoice with every kind of line, settled and credited, has nulls only in nullable members; a discount shows percentage only when it is one', async () => {
      const booked = await bookedWorkedInvoice();
      await t.request('POST', `/invoices/${booked.id}/settlements`, { body: { date: '2026-01-20', amount: 100 } });
      const cn = (await t.request('POST', `/invoices/${booked.id}/duplicate`, { body: { reverse: true } })).body;
      await t.request('PUT', `/invoices/${cn.id}/book`);
      const draft = (await createDraft({ customer: { id: randomUUID(), handle: null, name: null }, memo: null, dueDate: null, items: WORKED_ITEMS })).body;
      for (const id of [booked.id, cn.id, draft.id]) {
        const invoice = (await t.request('GET', `/invoices/${id}`)).body;
        expect(nullPaths(invoice).filter((path) => !NULLABLE.has(path))).toEqual([]);
        const [percentage, none, fixed] = invoice.items;
        expect(percentage.discount).toEqual({ percentage: 10, amount: expect.any(Number) });
        expect(none.discount).toEqual({ amount: 0 });
        expect(fixed.discount).toEqual({ amount: expect.any(Number) });
      }
      const page = (await t.request('GET', '/invoices?limit=100')).body;
      expect(page.items.flatMap((invoice: unknown) => nullPaths(invoice)).filter((path: string) => !NULLABLE.has(path))).toEqual([]);
    });

    it('the OpenAPI document marks nullable only those members, and says when percentage is omitted', async () => {
      const { body } = await t.request('GET', '/openapi.json', { token: null, environment: null });
      const schemas = body.components.schemas;
      const nullableIn = (name: string, prefix: string): string[] =>
        Object.entries(schemas[name].properties as Record<string, any>).flatMap(([key, schema]) => {
          const path = `${prefix}${key}`;
          const own = schema.nullable ? [path] : [];
          const ref: string | undefined = schema.$ref ?? schema.items?.$ref ?? schema.allOf?.[0]?.$ref ?? schema.anyOf?.[0]?.$ref;
          const child = ref ? ref.split('/').pop()! : undefined;
          return [...own, ...(child ? nullableIn(child, schema.type === 'array' ? `${path}[].` : `${path}.`) : [])];
        });
      expect(nullableIn('InvoiceDetailDto', '').filter((path) => !NULLABLE.has(path))).toEqual([]);
      expect(schemas.InvoiceLineDiscountDto.required ?? []).not.toContain('percentage');
      expect(schemas.InvoiceLineDiscountDto.properties.percentage.description).toMatch(/omitted/);
    });
  });

  describe('read model rebuild', () => {
    it('replaying the projection from zero reproduces the same invoices', async () => {
      const before = (await t.request('GET', '/invoices?limit=100')).body;
      expect(before.items.length).toBeGreaterThan(10);
      await t.app.get(ProjectionRunner).rebuild(INVOICING_PROJECTION);
      expect((await t.request('GET', '/invoices?limit=100')).body).toEqual(before);
      for (const invoice of before.items) await expectReadModelMatchesStream(t, invoice.id);
    });
  });

  describe('documentation', () => {
    it('registers every invoicing problem type', async () => {
      for (const code of [
        'invoice-not-draft',
        'invoice-already-booked',
        'invoice-not-booked',
        'invoice-has-no-lines',
        'unsupported-currency',
        'tax-code-exists',
        'discount-exceeds-line-amount',
        'credit-note-cannot-be-reversed',
        'unknown-tax-code',
        'invoice-exists',
        'credit-exceeds-invoice',
        'credit-note-wrong-sign',
      ]) {
        const response = await t.request('GET', `/problems/${code}`, { token: null, environment: null });
        expect({ code, status: response.status }).toEqual({ code, status: 200 });
      }
    });

    it('describes the invoice operations, bodies and responses in the OpenAPI document', async () => {
      const { body } = await t.request('GET', '/openapi.json', { token: null, environment: null });
      expect(Object.keys(body.paths)).toEqual(
        expect.arrayContaining([
          '/invoices',
          '/invoices/{invoiceId}',
          '/invoices/{invoiceId}/duplicate',
          '/invoices/{invoiceId}/book',
          '/invoices/{invoiceId}/settlements',
          '/tax-codes',
          '/tax-codes/{code}',
        ]),
      );
      const put = body.paths['/invoices/{invoiceId}'].put;
      expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404', '409', '422', '500']));
      expect(body.components.schemas.UpdateInvoiceDto.required).toEqual(['date', 'currency']);
      expect(body.components.schemas.CustomerInputDto.required).toEqual(['id', 'handle', 'name']);
      expect(body.components.schemas.CustomerInputDto.properties.handle.nullable).toBe(true);
      expect(body.components.schemas.CustomerInputDto.properties.name.nullable).toBe(true);
      expect(Object.keys(body.components.schemas.UpdateInvoiceDto.properties).sort()).toEqual(['currency', 'date', 'discounts', 'dueDate', 'items']);
      expect(body.components.schemas.InvoiceDetailDto.properties).toHaveProperty('totalDue');
      expect(body.paths['/invoices'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/InvoicePageDto');
      expect(body.components.schemas.InvoicePageDto.properties.items.items.$ref).toBe('#/components/schemas/InvoiceSummaryDto');
      expect(Object.keys(body.components.schemas.InvoiceSummaryDto.properties)).not.toEqual(expect.arrayContaining(['items']));
      expect(Object.keys(body.components.schemas.InvoiceSummaryDto.properties)).not.toEqual(expect.arrayContaining(['settlements']));
      expect(body.components.schemas.CreateInvoiceDto.properties.items.maxItems).toBe(500);
      expect(body.components.schemas.UpdateInvoiceDto.properties.items.maxItems).toBe(500);
    });
  });
});
