import { randomUUID } from 'node:crypto';
import { expectProblem, startTestApp, TestApp, TestResponse } from '@billing/testing';

/**
 * GET /payments over 250 payments of one environment (mixed statuses from the
 * sandbox tokens, both providers, three currencies, several invoices and
 * customers, amounts with ties): every field with every operator that applies
 * to it, against an oracle computed here from the created payments; every
 * orderBy ascending and descending paged 7 at a time; pageTokens bound to
 * their orderBy; and every kind of bad input as a 422 at its parameter.
 *
 * The resolver is held off (PAYMENTS_RESOLVE_AFTER_MS one day), so the
 * tok_timeout payments stay pending for the whole file and the oracle holds.
 */
describe('GET /payments: filter, orderBy and paging over 250 payments', () => {
  jest.setTimeout(180_000);
  const SECRET = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
  const INVOICES = 25;
  const PER_INVOICE = 10;
  const CUSTOMERS = Array.from({ length: 6 }, () => randomUUID());
  const SANDBOX_TOKENS = ['tok_success', 'tok_success', 'tok_decline', 'tok_insufficient_funds', 'tok_gateway_error'];

  interface Payment {
    id: string;
    invoiceId: string;
    customerId: string;
    amount: number;
    currency: string;
    status: 'pending' | 'succeeded' | 'failed';
    provider: 'sandbox' | 'manual';
    createdAt: string;
    [member: string]: unknown;
  }

  let t: TestApp;
  let env: ReturnType<typeof environment>;
  const created: Payment[] = [];

  function environment() {
    const id = randomUUID();
    const options = { environment: id, token: t.token([id]) };
    const call = (method: string, path: string, body?: unknown) => t.request(method, path, { ...options, body });
    const ok = async (method: string, path: string, body: unknown, expected: number): Promise<TestResponse> => {
      const response = await call(method, path, body);
      if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${response.text}`);
      return response;
    };
    return { id, call, ok };
  }

  /** Every page of a query (limit 100 unless the query says otherwise), with the pages' sizes. */
  async function all(params: Array<[string, string]>, limit = 100): Promise<{ items: Payment[]; pages: number[] }> {
    const items: Payment[] = [];
    const pages: number[] = [];
    let token: string | null = null;
    do {
      const query = new URLSearchParams([...params, ['limit', String(limit)], ...(token ? [['pageToken', token] as [string, string]] : [])]);
      const page: TestResponse = await env.call('GET', `/payments?${query}`);
      if (page.status !== 200) throw new Error(`GET /payments?${query}: ${page.status} ${page.text}`);
      items.push(...page.body.items);
      pages.push(page.body.items.length);
      token = page.body.nextPageToken;
      if (pages.length > 400) throw new Error('paging does not end');
    } while (token);
    return { items, pages };
  }

  const ids = (payments: readonly Payment[]) => payments.map((p) => p.id);
  const sortedIds = (payments: readonly Payment[]) => ids(payments).sort();

  beforeAll(async () => {
    t = await startTestApp({ env: { PAYMENTS_RESOLVE_AFTER_MS: String(24 * 3_600_000) } });
    env = environment();
    await env.ok('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } }, 200);
    await env.ok('POST', '/paymentproviders/enable', { name: 'manual', credentials: null }, 200);

    const invoices: Array<{ id: string; index: number }> = [];
    for (let i = 0; i < INVOICES; i++) {
      const currency = i % 5 === 4 ? 'SEK' : i % 3 === 1 ? 'USD' : 'EUR';
      const invoice = await env.ok(
        'POST',
        '/invoices',
        {
          customer: { id: CUSTOMERS[i % CUSTOMERS.length], handle: `C-${i % CUSTOMERS.length}`, name: 'Acme' },
          currency,
          items: [{ title: 'Plan', quantity: 1, unitAmount: 10_000_000 }],
        },
        201,
      );
      await env.ok('PUT', `/invoices/${invoice.body.id}/book`, {}, 200);
      invoices.push({ id: invoice.body.id, index: i });
    }

    // Invoices five at a time; an invoice's own payments one after another (one pending payment per invoice).
    const payInvoice = async ({ id, index }: { id: string; index: number }) => {
      for (let j = 0; j < PER_INVOICE; j++) {
        const k = index * PER_INVOICE + j;
        const amount = 100 + ((k * 37) % 40) * 25;
        const manual = k % 4 === 0;
        const lastOfInvoice = j === PER_INVOICE - 1;
        const token = manual ? 'bank-transfer' : lastOfInvoice && index % 5 === 0 ? 'tok_timeout' : SANDBOX_TOKENS[k % SANDBOX_TOKENS.length];
        const paid = await env.ok('POST', '/payments', { invoiceId: id, amount, paymentMethod: { provider: manual ? 'manual' : 'sandbox', token } }, 201);
        created.push(paid.body);
      }
    };
    const queue = [...invoices];
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await payInvoice(next);
      }),
    );
  });
  afterAll(() => t?.close());

  it('the fixture: 250 payments of every status, both providers, three currencies, six customers, amounts with ties', () => {
    expect(created).toHaveLength(INVOICES * PER_INVOICE);
    const count = (pick: (p: Payment) => unknown) => new Set(created.map(pick)).size;
    expect(new Set(created.map((p) => p.status))).toEqual(new Set(['pending', 'succeeded', 'failed']));
    expect(new Set(created.map((p) => p.provider))).toEqual(new Set(['sandbox', 'manual']));
    expect(new Set(created.map((p) => p.currency))).toEqual(new Set(['EUR', 'USD', 'SEK']));
    expect(count((p) => p.customerId)).toBe(CUSTOMERS.length);
    expect(count((p) => p.invoiceId)).toBe(INVOICES);
    expect(count((p) => p.amount)).toBeLessThan(created.length);
    // The manual provider's payments succeed at once.
    expect(created.filter((p) => p.provider === 'manual').every((p) => p.status === 'succeeded')).toBe(true);
    expect(created.filter((p) => p.status === 'pending')).toHaveLength(5);
  });

  it('without a filter: every payment exactly as POST /payments answered it, by id, 20 per page by default', async () => {
    const { items } = await all([]);
    expect(items).toHaveLength(created.length);
    const byId = new Map(created.map((p) => [p.id, p]));
    for (const item of items) expect(item).toEqual(byId.get(item.id));
    const first = await env.call('GET', '/payments');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(20);
    expect(ids(first.body.items)).toEqual(sortedIds(created).slice(0, 20));
    expect(first.body.nextPageToken).toEqual(expect.any(String));
  });

  describe('every field with every operator that applies, against the oracle', () => {
    type Op = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';
    const compare = (op: Op, a: number, b: number) => ({ eq: a === b, ne: a !== b, gt: a > b, ge: a >= b, lt: a < b, le: a <= b })[op];
    const ORDERED: Op[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le'];

    /** [filter text, predicate] pairs, built once the payments exist. */
    function cases(): Array<[string, (p: Payment) => boolean]> {
      const list: Array<[string, (p: Payment) => boolean]> = [];
      const equality = (field: string, value: string, actual: (p: Payment) => string, expected = value) => {
        list.push([`${field} eq ${value}`, (p) => actual(p) === expected]);
        list.push([`${field} ne ${value}`, (p) => actual(p) !== expected]);
      };
      for (const status of ['pending', 'succeeded', 'failed']) equality('status', status, (p) => p.status);
      const invoice = created[17].invoiceId;
      equality('invoiceId', invoice, (p) => p.invoiceId);
      equality('invoiceId', invoice.toUpperCase(), (p) => p.invoiceId, invoice);
      equality('invoiceId', randomUUID(), (p) => p.invoiceId);
      equality('customerId', CUSTOMERS[2], (p) => p.customerId);
      equality('customerId', CUSTOMERS[5].toUpperCase(), (p) => p.customerId, CUSTOMERS[5]);
      for (const provider of ['sandbox', 'manual']) equality('provider', provider, (p) => p.provider);
      for (const currency of ['EUR', 'USD', 'SEK', 'JPY']) equality('currency', currency, (p) => p.currency);
      equality('currency', 'usd', (p) => p.currency, 'USD');

      const amounts = created.map((p) => p.amount).sort((a, b) => a - b);
      for (const pivot of [amounts[125], amounts[0], amounts[amounts.length - 1], 101, -1, 0]) {
        for (const op of ORDERED) list.push([`amount ${op} ${pivot}`, (p) => compare(op, p.amount, pivot)]);
      }

      const times = created.map((p) => Date.parse(p.createdAt)).sort((a, b) => a - b);
      const pivot = times[120];
      const iso = new Date(pivot).toISOString();
      // The same instant written with an offset (the + sent as %2B by URLSearchParams) and without milliseconds.
      const shifted = new Date(pivot + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      const wholeSecond = Math.floor(times[60] / 1000) * 1000;
      const day = iso.slice(0, 10);
      const nextDay = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
      for (const [text, value] of [
        [iso, pivot],
        [shifted, pivot],
        [new Date(wholeSecond).toISOString().replace('.000Z', 'Z'), wholeSecond],
        [day, Date.parse(day)],
        [nextDay, Date.parse(nextDay)],
      ] as Array<[string, number]>) {
        for (const op of ORDERED) list.push([`createdAt ${op} ${text}`, (p) => compare(op, Date.parse(p.createdAt), value)]);
      }
      return list;
    }

    it('each single filter selects exactly the oracle’s payments (compared as sets of ids over every page)', async () => {
      const list = cases();
      const fields = new Set(list.map(([text]) => text.split(' ')[0]));
      expect([...fields].sort()).toEqual(['amount', 'createdAt', 'currency', 'customerId', 'invoiceId', 'provider', 'status']);
      const mismatches: string[] = [];
      for (const [text, predicate] of list) {
        const expected = sortedIds(created.filter(predicate));
        const { items } = await all([['filter', text]]);
        const actual = sortedIds(items);
        if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push(`${text}: expected ${expected.length}, got ${actual.length}`);
        // Unordered query: the default order, by id.
        expect(ids(items)).toEqual(actual);
      }
      expect(mismatches).toEqual([]);
    });

    it('the equality filters of a single-valued field partition the payments', async () => {
      for (const status of ['pending', 'succeeded', 'failed']) {
        const eq = (await all([['filter', `status eq ${status}`]])).items.length;
        const ne = (await all([['filter', `status ne ${status}`]])).items.length;
        expect(eq + ne).toBe(created.length);
        expect(eq).toBeGreaterThan(0);
      }
    });

    it('filters combine with and', async () => {
      const amounts = created.map((p) => p.amount).sort((a, b) => a - b);
      const times = created.map((p) => p.createdAt).sort();
      const combinations: Array<[string[], (p: Payment) => boolean]> = [
        [['status eq succeeded', 'provider eq sandbox'], (p) => p.status === 'succeeded' && p.provider === 'sandbox'],
        [
          ['status ne failed', `amount ge ${amounts[80]}`, `amount lt ${amounts[200]}`, `createdAt le ${times[180]}`, 'currency ne SEK'],
          (p) => p.status !== 'failed' && p.amount >= amounts[80] && p.amount < amounts[200] && p.createdAt <= times[180] && p.currency !== 'SEK',
        ],
        [[`customerId eq ${CUSTOMERS[1]}`, 'provider eq manual'], (p) => p.customerId === CUSTOMERS[1] && p.provider === 'manual'],
        [['status eq pending', 'status eq succeeded'], () => false],
        [[`amount gt ${amounts[100]}`, `amount lt ${amounts[100]}`], () => false],
        [[`invoiceId eq ${created[3].invoiceId}`, 'status eq failed'], (p) => p.invoiceId === created[3].invoiceId && p.status === 'failed'],
      ];
      for (const [filters, predicate] of combinations) {
        const { items } = await all(filters.map((filter) => ['filter', filter]));
        expect({ filters, ids: sortedIds(items) }).toEqual({ filters, ids: sortedIds(created.filter(predicate)) });
      }
    });

    it('a filter with an orderBy answers the oracle’s sequence, page after page', async () => {
      const failedByAmountDesc = created.filter((p) => p.status === 'failed').sort(byOrder('Amount', true));
      expect(
        ids(
          (
            await all(
              [
                ['filter', 'status eq failed'],
                ['orderBy', '-Amount'],
              ],
              7,
            )
          ).items,
        ),
      ).toEqual(ids(failedByAmountDesc));
      const eurByCreated = created.filter((p) => p.currency === 'EUR' && p.amount > 500).sort(byOrder('CreatedAt', false));
      expect(
        ids(
          (
            await all(
              [
                ['filter', 'currency eq EUR'],
                ['filter', 'amount gt 500'],
                ['orderBy', 'CreatedAt'],
              ],
              9,
            )
          ).items,
        ),
      ).toEqual(ids(eurByCreated));
    });
  });

  /** The documented order: the field, then id, both in the direction asked for. */
  function byOrder(field: 'Id' | 'CreatedAt' | 'Amount', descending: boolean): (a: Payment, b: Payment) => number {
    const key = (p: Payment): number | string => (field === 'Amount' ? p.amount : field === 'CreatedAt' ? Date.parse(p.createdAt) : '');
    return (a, b) => {
      const [x, y] = [key(a), key(b)];
      const primary = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      return descending ? -primary : primary;
    };
  }

  describe('orderBy over every page of 7', () => {
    it.each([
      ['Id', false],
      ['Id', true],
      ['CreatedAt', false],
      ['CreatedAt', true],
      ['Amount', false],
      ['Amount', true],
    ] as const)('orderBy %s (descending: %s): every payment once, in order, ties broken by id', async (field, descending) => {
      const { items, pages } = await all([['orderBy', `${descending ? '-' : ''}${field}`]], 7);
      // Full pages of 7 and one last partial page: no short page in the middle, no empty page at the end.
      expect(pages).toEqual([...Array.from({ length: Math.floor(created.length / 7) }, () => 7), created.length % 7]);
      expect(new Set(ids(items)).size).toBe(items.length);
      expect(ids(items)).toEqual(ids([...created].sort(byOrder(field, descending))));
    });

    it('the fixture has ties to break: equal amounts and equal creation instants', () => {
      const amounts = created.map((p) => p.amount);
      expect(new Set(amounts).size).toBeLessThan(amounts.length);
    });

    it('orderBy is matched case-insensitively, and an empty orderBy is the default', async () => {
      expect(ids((await all([['orderBy', '-createdat']], 50)).items)).toEqual(ids([...created].sort(byOrder('CreatedAt', true))));
      expect(ids((await all([['orderBy', '']], 50)).items)).toEqual(sortedIds(created));
    });
  });

  describe('pageToken', () => {
    const first = async (orderBy: string) => {
      const page = await env.call('GET', `/payments?${new URLSearchParams({ orderBy, limit: '7' })}`);
      expect(page.status).toBe(200);
      return page.body.nextPageToken as string;
    };

    it('a pageToken issued for one orderBy is a 422 at /query/pageToken with another', async () => {
      const orders = ['Id', '-Id', 'CreatedAt', '-CreatedAt', 'Amount', '-Amount'];
      for (const issued of orders) {
        const token = await first(issued);
        for (const used of orders.filter((o) => o !== issued)) {
          const refused = await env.call('GET', `/payments?${new URLSearchParams({ orderBy: used, pageToken: token })}`);
          expectProblem(refused, 422, 'validation-failed');
          expect({ issued, used, errors: refused.body.errors }).toEqual({
            issued,
            used,
            errors: [{ pointer: '/query/pageToken', detail: expect.stringContaining('orderBy') }],
          });
        }
      }
      // Id is the default: a token of orderBy=Id goes on without an orderBy.
      const token = await first('Id');
      expect((await env.call('GET', `/payments?${new URLSearchParams({ pageToken: token, limit: '7' })}`)).status).toBe(200);
    });

    it('a pageToken from one environment is just a position: in another it lists that environment’s own payments', async () => {
      const token = await first('Amount');
      const other = environment();
      const listed = await other.call('GET', `/payments?${new URLSearchParams({ orderBy: 'Amount', pageToken: token })}`);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ items: [], nextPageToken: null });
    });

    const forged = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
    it.each([
      ['not base64 json', 'Id', 'nope!'],
      ['json without the members', 'Id', forged({ a: 1 })],
      ['a json string', 'Id', forged('order')],
      ['a forged amount', 'Amount', forged({ order: 'amount', value: 'ten', id: randomUUID() })],
      ['a forged id', 'Id', forged({ order: 'id', value: 'x', id: 'not-a-uuid' })],
      ['a forged time', 'CreatedAt', forged({ order: 'createdAt', value: 'yesterday', id: randomUUID() })],
    ])('%s is a 422 at /query/pageToken', async (_label, orderBy, token) => {
      const refused = await env.call('GET', `/payments?${new URLSearchParams({ orderBy, pageToken: token })}`);
      expectProblem(refused, 422, 'validation-failed');
      expect(refused.body.errors).toEqual([{ pointer: '/query/pageToken', detail: 'is not a page token returned by this service' }]);
    });
  });

  describe('bad input: a 422 whose pointer names the parameter and whose detail says what is wrong', () => {
    const q = (...pairs: Array<[string, string]>) => new URLSearchParams(pairs).toString();
    it.each([
      [
        'unknown field',
        q(['filter', 'colour eq red']),
        '/query/filter/0',
        /unknown field "colour".*status, invoiceId, customerId, provider, currency, amount, createdAt/,
      ],
      ['field names are case-sensitive', q(['filter', 'Status eq failed']), '/query/filter/0', /unknown field "Status"/],
      ['unknown operator', q(['filter', 'amount like 5']), '/query/filter/0', /unknown operator "like".*eq, ne, gt, ge, lt, le/],
      ['an operator spelled as a symbol', q(['filter', 'amount >= 5']), '/query/filter/0', /unknown operator ">="/],
      ['ordering on status', q(['filter', 'status gt failed']), '/query/filter/0', /operator gt does not apply to status: use eq or ne/],
      ['ordering on invoiceId', q(['filter', `invoiceId le ${randomUUID()}`]), '/query/filter/0', /operator le does not apply to invoiceId/],
      ['ordering on customerId', q(['filter', `customerId ge ${randomUUID()}`]), '/query/filter/0', /operator ge does not apply to customerId/],
      ['ordering on provider', q(['filter', 'provider lt sandbox']), '/query/filter/0', /operator lt does not apply to provider/],
      ['ordering on currency', q(['filter', 'currency gt EUR']), '/query/filter/0', /operator gt does not apply to currency/],
      ['a bad uuid', q(['filter', 'invoiceId eq 12345']), '/query/filter/0', /bad value for invoiceId: expected a uuid; got "12345"/],
      ['a bad customer uuid', q(['filter', 'customerId ne C-1']), '/query/filter/0', /bad value for customerId: expected a uuid/],
      [
        'a bad status',
        q(['filter', 'status eq paid']),
        '/query/filter/0',
        /bad value for status: expected one of pending, requires_action, succeeded, failed, disputed; got "paid"/,
      ],
      ['a bad provider', q(['filter', 'provider eq adyen']), '/query/filter/0', /bad value for provider: expected one of sandbox, manual, stripe/],
      ['a bad currency', q(['filter', 'currency eq EURO']), '/query/filter/0', /bad value for currency/],
      ['a decimal amount', q(['filter', 'amount eq 1.5']), '/query/filter/0', /bad value for amount: expected an integer number of minor units/],
      ['a word for an amount', q(['filter', 'amount gt ten']), '/query/filter/0', /bad value for amount/],
      ['an amount beyond the safe range', q(['filter', 'amount lt 99999999999999999999']), '/query/filter/0', /bad value for amount/],
      ['an impossible date', q(['filter', 'createdAt gt 2026-02-30']), '/query/filter/0', /bad value for createdAt: expected a date/],
      ['a word for a date', q(['filter', 'createdAt lt yesterday']), '/query/filter/0', /bad value for createdAt/],
      ['a date-time without a zone', q(['filter', 'createdAt ge 2026-01-01T10:00:00']), '/query/filter/0', /bad value for createdAt/],
      ['an unencoded + in the offset (a space)', 'filter=createdAt+ge+2026-01-01T10:00:00+02:00', '/query/filter/0', /bad value for createdAt.*%2B/],
      ['microseconds', q(['filter', 'createdAt ge 2026-01-01T10:00:00.123456Z']), '/query/filter/0', /bad value for createdAt.*millisecond/],
      ['the value missing', q(['filter', 'status eq']), '/query/filter/0', /expected `field op value`/],
      ['the value empty', q(['filter', 'status eq ']), '/query/filter/0', /expected `field op value`/],
      ['only a field', q(['filter', 'status']), '/query/filter/0', /expected `field op value`/],
      ['an empty filter', q(['filter', '']), '/query/filter/0', /expected `field op value`/],
      ['two spaces', q(['filter', 'status  eq failed']), '/query/filter/0', /expected `field op value`/],
      ['a leading space', q(['filter', ' status eq failed']), '/query/filter/0', /expected `field op value`/],
      ['a trailing space in the value', q(['filter', 'status eq failed ']), '/query/filter/0', /bad value for status/],
      ['the second filter bad', q(['filter', 'status eq failed'], ['filter', 'amount eq x']), '/query/filter/1', /bad value for amount/],
      [
        'the third filter bad',
        q(['filter', 'status eq failed'], ['filter', 'amount eq 5'], ['filter', 'nope eq 1']),
        '/query/filter/2',
        /unknown field "nope"/,
      ],
      ['more than 20 filters', q(...Array.from({ length: 21 }, () => ['filter', 'amount gt 0'] as [string, string])), '/query/filter', /at most 20 filters/],
      ['an unknown orderBy', q(['orderBy', 'Name']), '/query/orderBy', /must be one of Id, CreatedAt, Amount, optionally prefixed with -.*"Name"/],
      ['orderBy with a + prefix', q(['orderBy', '+Amount']), '/query/orderBy', /must be one of Id, CreatedAt, Amount/],
      ['orderBy on a filter field that cannot be ordered', q(['orderBy', 'status']), '/query/orderBy', /must be one of Id, CreatedAt, Amount/],
      ['limit 0', q(['limit', '0']), '/query/limit', /must be an integer from 1 to 100; got "0"/],
      ['limit 101', q(['limit', '101']), '/query/limit', /must be an integer from 1 to 100; got "101"/],
      ['limit abc', q(['limit', 'abc']), '/query/limit', /must be an integer from 1 to 100; got "abc"/],
      ['limit -1', q(['limit', '-1']), '/query/limit', /must be an integer from 1 to 100/],
      ['limit 1e1', q(['limit', '1e1']), '/query/limit', /must be an integer from 1 to 100/],
      ['limit 2.5', q(['limit', '2.5']), '/query/limit', /must be an integer from 1 to 100/],
      ['an unknown query parameter', q(['sort', 'amount']), '/query/sort', /unknown query parameter.*filter, orderBy, limit, pageToken/],
      ['a misspelt filter', q(['filters', 'status eq failed']), '/query/filters', /unknown query parameter/],
      ['a repeated limit', q(['limit', '5'], ['limit', '6']), '/query/limit', /once/],
      ['a repeated orderBy', q(['orderBy', 'Id'], ['orderBy', 'Amount']), '/query/orderBy', /once/],
      ['a repeated pageToken', q(['pageToken', 'a'], ['pageToken', 'b']), '/query/pageToken', /once/],
    ])('%s', async (_label, query, pointer, detail) => {
      const refused = await env.call('GET', `/payments?${query}`);
      expectProblem(refused, 422, 'validation-failed');
      expect(refused.body.errors).toEqual([{ pointer, detail: expect.stringMatching(detail) }]);
    });

    it('several problems of one request are reported together, each at its own pointer', async () => {
      const refused = await env.call(
        'GET',
        `/payments?${q(['filter', 'status eq paid'], ['filter', 'amount ge 1'], ['filter', 'nope eq 1'], ['orderBy', 'Name'], ['limit', '0'])}`,
      );
      expectProblem(refused, 422, 'validation-failed');
      expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/query/filter/0', '/query/filter/2', '/query/orderBy', '/query/limit']);
      for (const error of refused.body.errors) expect(error.detail).toEqual(expect.any(String));
    });

    it('the boundaries are accepted: limit 1 and 100, amounts at ±MAX_SAFE_INTEGER, the last instant of 9999', async () => {
      for (const query of [
        q(['limit', '1']),
        q(['limit', '100']),
        q(['filter', `amount le ${Number.MAX_SAFE_INTEGER}`]),
        q(['filter', `amount ge -${Number.MAX_SAFE_INTEGER}`]),
        q(['filter', 'createdAt lt 9999-12-31T23:59:59.999Z']),
        q(['filter', 'createdAt gt 0001-01-01']),
      ]) {
        const page = await env.call('GET', `/payments?${query}`);
        expect({ query, status: page.status }).toEqual({ query, status: 200 });
      }
      expect((await all([['filter', 'createdAt lt 9999-12-31T23:59:59.999Z']])).items).toHaveLength(created.length);
      expect((await all([['filter', `amount ge -${Number.MAX_SAFE_INTEGER}`]])).items).toHaveLength(created.length);
    });

    it('a createdAt before year 0001 (Postgres has no year 0) is a 422 at the filter, never a 5xx', async () => {
      for (const value of ['0000-01-01', '0000-06-01T00:00:00Z', '0001-01-01T01:00:00%2B02:00']) {
        const page = await env.call('GET', `/payments?filter=createdAt+gt+${value}`);
        expect({ value, status: page.status, pointer: page.body.errors?.[0]?.pointer }).toEqual({ value, status: 422, pointer: '/query/filter/0' });
      }
      expect((await env.call('GET', '/payments?filter=createdAt+gt+0001-01-01')).status).toBe(200);
    });
  });
});
