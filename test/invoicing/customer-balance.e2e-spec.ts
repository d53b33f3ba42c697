import { randomUUID } from 'node:crypto';
import { EventStore } from '@billing/event-store';
import { NotificationCatalogue } from '@billing/platform';
import { environmentCall, eventually, expectProblem, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { customer as inlineCustomer, otherEnvironment, pointersOf } from './invoicing-helpers';

/**
 * A customer's credit balance over HTTP against real Postgres (README:
 * Credit balance): manual entries and their paged ledger, credit applied when
 * an invoice is booked (never twice, never beyond the balance, also under
 * concurrent bookings), a credit note's creditAmount and a void adding to it,
 * a subscription's invoices taking it over two periods on the test clock
 * (collection only for what is left due), every 422, and another
 * environment's 404. Every answer is checked against /openapi.json.
 */
describe('Customer credit balance over HTTP', () => {
  let t: TestApp;
  const clock = new FakeClock(new Date('2026-01-20T10:00:00.000Z'));

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  async function createCustomer(body: Record<string, unknown> = {}) {
    const response = await t.request('POST', '/customers', { body: { name: 'Acme Oy', ...body } });
    if (response.status !== 201) throw new Error(`POST /customers: ${response.status} ${response.text}`);
    return response.body as { id: string; handle: string };
  }
  async function entry(customerId: string, body: Record<string, unknown>) {
    const response = await t.request('POST', `/customers/${customerId}/balance-transactions`, { body });
    if (response.status !== 201) throw new Error(`POST balance-transactions: ${response.status} ${response.text}`);
    return response.body;
  }
  /** A customer with `credit` EUR of credit available. */
  async function customerWithCredit(credit: number) {
    const customer = await createCustomer();
    if (credit > 0) await entry(customer.id, { amount: -credit, currency: 'EUR', description: 'prepaid' });
    return customer;
  }
  async function draft(customerId: string, unitAmount: number, quantity = 1) {
    const response = await t.request('POST', '/invoices', { body: { customerId, currency: 'EUR', items: [{ quantity, unitAmount }] } });
    if (response.status !== 201) throw new Error(`POST /invoices: ${response.status} ${response.text}`);
    return response.body.id as string;
  }
  const book = (invoiceId: string) => t.request('PUT', `/invoices/${invoiceId}/book`, { body: {} });
  const balances = async (customerId: string) => (await t.request('GET', `/customers/${customerId}`)).body.balances;
  const ledger = async (customerId: string) => (await t.request('GET', `/customers/${customerId}/balance-transactions?limit=100`)).body.items as any[];

  describe('balance transactions', () => {
    it('201 with the entry, Location and ETag; credit and debits move the balance; the customer shows what is available', async () => {
      const customer = await createCustomer();
      const credited = await t.request('POST', `/customers/${customer.id}/balance-transactions`, {
        body: { amount: -5000, currency: 'eur', description: 'Goodwill' },
      });
      expect(credited.status).toBe(201);
      expect(credited.headers.get('location')).toBe(`/customers/${customer.id}/balance-transactions/${credited.body.id}`);
      expect(credited.headers.get('etag')).toBe('"1"');
      expect(credited.body).toEqual({
        id: credited.body.id,
        amount: -5000,
        currency: 'EUR',
        description: 'Goodwill',
        kind: 'adjustment',
        invoiceId: null,
        creditNoteId: null,
        balanceAfter: -5000,
        createdAt: '2026-01-20T10:00:00.000Z',
      });
      expect((await t.request('GET', credited.headers.get('location')!)).body).toEqual(credited.body);

      const debited = await entry(customer.id, { amount: 2000, currency: 'EUR' });
      expect(debited).toMatchObject({ amount: 2000, balanceAfter: -3000, description: null });
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 3000 }]);

      expectProblem(
        await t.request('POST', `/customers/${customer.id}/balance-transactions`, { body: { amount: 3001, currency: 'EUR' } }),
        409,
        'customer-balance-insufficient',
      );
      expectProblem(
        await t.request('POST', `/customers/${customer.id}/balance-transactions`, { body: { amount: 1, currency: 'USD' } }),
        409,
        'customer-balance-insufficient',
      );
      await entry(customer.id, { amount: -700, currency: 'USD' });
      expect(await balances(customer.id)).toEqual([
        { currency: 'EUR', available: 3000 },
        { currency: 'USD', available: 700 },
      ]);
      expect(await entry(customer.id, { amount: 3000, currency: 'EUR' })).toMatchObject({ balanceAfter: 0 });
      expect(await balances(customer.id)).toEqual([
        { currency: 'EUR', available: 0 },
        { currency: 'USD', available: 700 },
      ]);
    });

    it('lists newest first with keyset paging that reaches every entry exactly once', async () => {
      const customer = await createCustomer();
      // Twelve entries: their log positions cross from one digit to two even in a fresh database (ordered as numbers, not text).
      const amounts = Array.from({ length: 12 }, (_, i) => -100 * (i + 1));
      const made = [];
      for (const amount of amounts) made.push(await entry(customer.id, { amount, currency: 'EUR' }));
      const seen: any[] = [];
      let token: string | null = null;
      do {
        const query: string = token === null ? '?limit=5' : `?limit=5&pageToken=${token}`;
        const page = await t.request('GET', `/customers/${customer.id}/balance-transactions${query}`);
        expect(page.status).toBe(200);
        expect(page.body.items.length).toBeLessThanOrEqual(5);
        seen.push(...page.body.items);
        token = page.body.nextPageToken;
      } while (token !== null);
      expect(seen).toEqual([...made].reverse());
      const running = amounts.map((_, i) => amounts.slice(0, i + 1).reduce((sum, amount) => sum + amount, 0));
      expect(seen.map((item) => item.balanceAfter)).toEqual(running.reverse());
      expect((await t.request('GET', `/customers/${(await createCustomer()).id}/balance-transactions`)).body).toEqual({ items: [], nextPageToken: null });
    });

    it.each([
      ['an unsupported currency', { amount: -100, currency: 'XXX' }, ['/currency']],
      ['a non-integer amount', { amount: -10.5, currency: 'EUR' }, ['/amount']],
      ['a zero amount', { amount: 0, currency: 'EUR' }, ['/amount']],
      ['an unknown property', { amount: -100, currency: 'EUR', memo: 'x' }, ['/memo']],
      ['no amount', { currency: 'EUR' }, ['/amount']],
      ['a description too long', { amount: -100, currency: 'EUR', description: 'x'.repeat(501) }, ['/description']],
    ])('422 for %s', async (_name, body, pointers) => {
      const customer = await createCustomer();
      const response = await t.request('POST', `/customers/${customer.id}/balance-transactions`, { body });
      expectProblem(response, 422, 'validation-failed');
      expect(pointersOf(response)).toEqual(pointers);
      expect(await balances(customer.id)).toEqual([]);
    });

    it('422 for a bad list query; 409 for an archived customer; 404 for an unknown one or entry', async () => {
      const customer = await createCustomer();
      const list = (query: string) => t.request('GET', `/customers/${customer.id}/balance-transactions?${query}`);
      expectProblem(await list('limit=0'), 422, 'validation-failed', '/query/limit');
      expectProblem(await list('pageToken=forged'), 422, 'validation-failed', '/query/pageToken');
      expectProblem(await list('currency=EUR'), 422, 'validation-failed', '/query/currency');
      expectProblem(await t.request('GET', `/customers/${randomUUID()}/balance-transactions`), 404, 'not-found');
      expectProblem(await t.request('GET', `/customers/${customer.id}/balance-transactions/${randomUUID()}`), 404, 'not-found');
      expectProblem(await t.request('GET', `/customers/${customer.id}/balance-transactions/not-a-uuid`), 404, 'not-found');
      expectProblem(await t.request('POST', `/customers/${randomUUID()}/balance-transactions`, { body: { amount: -1, currency: 'EUR' } }), 404, 'not-found');
      expect((await t.request('DELETE', `/customers/${customer.id}`)).status).toBe(200);
      expectProblem(
        await t.request('POST', `/customers/${customer.id}/balance-transactions`, { body: { amount: -1, currency: 'EUR' } }),
        409,
        'customer-archived',
      );
    });

    it("another environment's customer and entries are a 404", async () => {
      const customer = await customerWithCredit(100);
      const [made] = await ledger(customer.id);
      const other = otherEnvironment(t);
      expectProblem(await other.request('POST', `/customers/${customer.id}/balance-transactions`, { body: { amount: -1, currency: 'EUR' } }), 404, 'not-found');
      expectProblem(await other.request('GET', `/customers/${customer.id}/balance-transactions`), 404, 'not-found');
      expectProblem(await other.request('GET', `/customers/${customer.id}/balance-transactions/${made.id}`), 404, 'not-found');
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 100 }]);
    });
  });

  describe('credit applied at booking', () => {
    it('applies the credit up to the total: creditApplied, a reduced totalDue, an invoice_applied entry naming the invoice', async () => {
      const customer = await customerWithCredit(1000);
      const invoiceId = await draft(customer.id, 1500, 2);
      const booked = await book(invoiceId);
      expect(booked.status).toBe(200);
      expect(booked.body).toMatchObject({ totalInclVat: 3000, creditApplied: 1000, totalDue: 2000, settlementStatus: 'under_settled' });
      expect(booked.body.settlements).toEqual([{ date: booked.body.date, amount: 1000, reference: expect.any(String), note: 'Credit balance applied' }]);
      expect((await t.request('GET', `/invoices/${invoiceId}`)).body).toEqual(booked.body);
      const [applied] = await ledger(customer.id);
      expect(applied).toMatchObject({ kind: 'invoice_applied', amount: 1000, invoiceId, creditNoteId: null, balanceAfter: 0 });
      expect(booked.body.settlements[0].reference).toBe(applied.id);
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 0 }]);

      // The next invoice finds no credit left.
      const next = await book(await draft(customer.id, 500));
      expect(next.body).toMatchObject({ creditApplied: 0, totalDue: 500, settlementStatus: 'not_settled' });
      expect(await ledger(customer.id)).toHaveLength(2);
    });

    it('an invoice the credit covers in full is settled with nothing due: not payable, and the rest of the credit stays', async () => {
      const customer = await customerWithCredit(5000);
      const invoiceId = await draft(customer.id, 2000);
      expect((await book(invoiceId)).body).toMatchObject({ creditApplied: 2000, totalDue: 0, settlementStatus: 'settled' });
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 3000 }]);
      expectProblem(
        await t.request('POST', '/payments', { body: { invoiceId, paymentMethod: { provider: 'sandbox', token: 'tok_success' } } }),
        422,
        'invoice-not-payable',
      );
      expect((await t.request('GET', `/invoices?customerId=${customer.id}`)).body.items[0]).toMatchObject({ creditApplied: 2000, totalDue: 0 });
    });

    it('an inline one-off customer takes no credit; neither does an invoice in another currency', async () => {
      const customer = await customerWithCredit(1000);
      const inline = await t.request('POST', '/invoices', { body: { customer: inlineCustomer(), currency: 'EUR', items: [{ quantity: 1, unitAmount: 100 }] } });
      expect((await book(inline.body.id)).body).toMatchObject({ creditApplied: 0, totalDue: 100 });
      const usd = await t.request('POST', '/invoices', { body: { customerId: customer.id, currency: 'USD', items: [{ quantity: 1, unitAmount: 100 }] } });
      expect((await book(usd.body.id)).body).toMatchObject({ creditApplied: 0, totalDue: 100 });
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 1000 }]);
    });

    it('two invoices booked at once against 100 of credit apply exactly 100 in total', async () => {
      const customer = await customerWithCredit(100);
      const [first, second] = [await draft(customer.id, 80), await draft(customer.id, 80)];
      const [a, b] = await Promise.all([book(first), book(second)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.body.creditApplied + b.body.creditApplied).toBe(100);
      expect([a.body.creditApplied, b.body.creditApplied].sort((x, y) => x - y)).toEqual([20, 80]);
      expect(a.body.totalDue + b.body.totalDue).toBe(60);
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 0 }]);
      const applied = (await ledger(customer.id)).filter((item) => item.kind === 'invoice_applied');
      expect(applied.map((item) => item.invoiceId).sort()).toEqual([first, second].sort());
      expect(applied.reduce((sum, item) => sum + item.amount, 0)).toBe(100);
    });
  });

  describe('credit notes and voids add to the balance', () => {
    it("a credit note's creditAmount becomes a credit_note entry; on an inline customer's invoice it stays on the credit note", async () => {
      const customer = await createCustomer();
      const invoiceId = await draft(customer.id, 2000);
      await book(invoiceId);
      expect((await t.request('POST', `/invoices/${invoiceId}/settlements`, { body: { date: '2026-01-20', amount: 2000, reference: 'bank' } })).status).toBe(
        201,
      );
      const issued = await t.request('POST', `/invoices/${invoiceId}/credit-notes`, { body: { amount: 500, reason: 'other', creditAmount: 500 } });
      expect(issued.status).toBe(201);
      const [credited] = await ledger(customer.id);
      expect(credited).toMatchObject({ kind: 'credit_note', amount: -500, invoiceId, creditNoteId: issued.body.id, balanceAfter: -500 });
      expect(credited.description).toContain(issued.body.handle);
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 500 }]);

      // The credit it left is applied to the customer's next invoice.
      expect((await book(await draft(customer.id, 300))).body).toMatchObject({ creditApplied: 300, totalDue: 0 });
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 200 }]);

      const inline = await t.request('POST', '/invoices', {
        body: { customer: inlineCustomer(), currency: 'EUR', items: [{ quantity: 1, unitAmount: 1000 }] },
      });
      await book(inline.body.id);
      await t.request('POST', `/invoices/${inline.body.id}/settlements`, { body: { date: '2026-01-20', amount: 1000, reference: 'bank' } });
      const oneOff = await t.request('POST', `/invoices/${inline.body.id}/credit-notes`, { body: { amount: 400, reason: 'other', creditAmount: 400 } });
      expect(oneOff.status).toBe(201);
      expect(oneOff.body.creditNote).toMatchObject({ creditAmount: 400 });
    });

    it('voiding an invoice returns the credit it took: a void_returned entry, creditApplied back to 0, nothing due', async () => {
      const customer = await customerWithCredit(1000);
      const invoiceId = await draft(customer.id, 2500);
      expect((await book(invoiceId)).body).toMatchObject({ creditApplied: 1000, totalDue: 1500 });
      const voided = await t.request('PUT', `/invoices/${invoiceId}/void`, { body: {} });
      expect(voided.status).toBe(200);
      expect(voided.body).toMatchObject({ status: 'void', creditApplied: 0, totalDue: 0, settlementStatus: 'not_settled' });
      const [returned] = await ledger(customer.id);
      expect(returned).toMatchObject({ kind: 'void_returned', amount: -1000, invoiceId, balanceAfter: -1000 });
      expect(await balances(customer.id)).toEqual([{ currency: 'EUR', available: 1000 }]);
      // Voiding again changes nothing: the credit is returned once.
      expect((await t.request('PUT', `/invoices/${invoiceId}/void`, { body: {} })).status).toBe(200);
      expect(await ledger(customer.id)).toHaveLength(3);
    });
  });

  it('every entry publishes customer.balance_changed with the customer as of it; the history shows the entries', async () => {
    const customer = await customerWithCredit(1000);
    await book(await draft(customer.id, 400));
    const events = await t.app.get(EventStore).readStream({ environmentId: t.environmentId, streamType: 'customer', streamId: customer.id });
    const catalogue = t.app.get(NotificationCatalogue);
    expect(events.map((event) => catalogue.namesFor(event))).toEqual([['customer.created'], ['customer.balance_changed'], ['customer.balance_changed']]);
    const [, credited, applied] = await Promise.all(events.map((event) => catalogue.resourceAt(event)));
    expect([(credited as any).balances, (applied as any).balances]).toEqual([[{ currency: 'EUR', available: 1000 }], [{ currency: 'EUR', available: 600 }]]);
    const history = await t.request('GET', `/customers/${customer.id}/history`);
    expect(history.body.items.map((item: { type: string }) => item.type)).toEqual(['CustomerCreated', 'CustomerBalanceAdjusted', 'CustomerBalanceAdjusted']);
  });

  it("a subscription's invoices take the customer's credit over two periods; collection charges only what is left", async () => {
    const environmentId = randomUUID();
    const call = environmentCall(t, environmentId);
    await call('POST', '/test-clock/advance', { to: '2026-01-20T12:00:00.000Z' }, 200);
    await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: 'sk_sandbox_balance1234' } }, 200);
    const customer = (await call('POST', '/customers', { name: 'Acme', defaultPaymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201)).body;
    await call('POST', `/customers/${customer.id}/balance-transactions`, { amount: -4000, currency: 'EUR', description: 'prepaid' }, 201);
    const productId = (await call('POST', '/products', { name: 'Plan' }, 201)).body.id;
    const price = { name: 'Monthly', priceModel: 'fee', pricing: { eur: { unitAmount: 2500 } }, purchase: 'recurring', termCount: 1, termUnit: 'month' };
    const priceId = (await call('POST', '/prices', { ...price, billingTiming: 'advance', productId }, 201)).body.id;
    await call('POST', '/subscriptions', { customerId: customer.id, currency: 'EUR', term: { start: '2026-02-01', end: null }, items: [{ priceId }] }, 201);
    const invoices = async () => (await call('GET', `/invoices?customerId=${customer.id}`, undefined, 200)).body.items as any[];
    const charges = async () =>
      (await t.dataSource.query(`select count(*)::int as count from sandbox_gateway_charges where environment_id = $1`, [environmentId]))[0].count;

    await call('POST', '/test-clock/advance', { to: '2026-02-01T00:00:00.000Z' }, 200);
    const [first] = await invoices();
    expect(first).toMatchObject({ status: 'booked', totalInclVat: 2500, creditApplied: 2500, totalDue: 0, settlementStatus: 'settled' });
    expect((await call('GET', `/customers/${customer.id}`, undefined, 200)).body.balances).toEqual([{ currency: 'EUR', available: 1500 }]);

    await call('POST', '/test-clock/advance', { to: '2026-03-01T00:00:00.000Z' }, 200);
    const second = (await invoices()).find((invoice) => invoice.id !== first.id);
    expect(second).toMatchObject({ status: 'booked', totalInclVat: 2500, creditApplied: 1500 });
    expect((await call('GET', `/customers/${customer.id}`, undefined, 200)).body.balances).toEqual([{ currency: 'EUR', available: 0 }]);
    // Only what the credit left due is collected: one charge, of 1000, for the second invoice; none for the first.
    const paid = await eventually(
      async () => (await call('GET', `/invoices/${second.id}`, undefined, 200)).body,
      (invoice) => invoice.settlementStatus === 'settled',
      { what: 'the second invoice collected' },
    );
    expect(paid).toMatchObject({ creditApplied: 1500, totalDue: 0 });
    expect(await charges()).toBe(1);
    const payments = (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${second.id}`)}`, undefined, 200)).body.items;
    expect(payments).toEqual([expect.objectContaining({ amount: 1000, status: 'succeeded' })]);
    expect((await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${first.id}`)}`, undefined, 200)).body.items).toEqual([]);
    const kinds = ((await call('GET', `/customers/${customer.id}/balance-transactions`, undefined, 200)).body.items as any[]).map((item) => [
      item.kind,
      item.amount,
    ]);
    expect(kinds).toEqual([
      ['invoice_applied', 1500],
      ['invoice_applied', 2500],
      ['adjustment', -4000],
    ]);
  });
});
