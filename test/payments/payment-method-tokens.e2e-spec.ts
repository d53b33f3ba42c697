import { randomUUID } from 'node:crypto';
import { MigrationInterface } from 'typeorm';
import { secretHint } from '@billing/shared-kernel';
import { EnvironmentCall, environmentCall, eventually, FakeClock, startTestApp, TestApp } from '@billing/testing';
import { ALL_MIGRATIONS } from '../../apps/api/src/database/migrations';
import { collectingSubscription } from './collection-kit';

/**
 * Issue 41 #20: a payment method's token is a secret of the customer's; it
 * is kept at rest only encrypted (events, snapshots, read models), shown
 * only as its hint, and decrypted for the gateway call alone.
 */
describe('payment method tokens at rest', () => {
  const clock = new FakeClock(new Date('2026-01-20T12:00:00.000Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  const TOKEN = 'tok_success';

  /** Every table (the sandbox's own tables aside: they stand in for the provider, who holds the token) and the rows that hold `text`. */
  async function tablesHolding(text: string): Promise<string[]> {
    const tables: { schema: string; name: string }[] = await t.dataSource.query(
      `select table_schema as schema, table_name as name from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') and table_name not like 'sandbox_gateway_%'`,
    );
    const holding: string[] = [];
    for (const { schema, name } of tables) {
      const [{ n }] = await t.dataSource.query(`select count(*)::int as n from "${schema}"."${name}" as r where r::text like '%' || $1 || '%'`, [text]);
      if (n > 0) holding.push(`${schema}.${name}`);
    }
    return holding;
  }

  async function collected(call: EnvironmentCall): Promise<string> {
    await call('POST', '/test-clock/advance', { to: '2026-02-01T00:00:00.000Z' }, 200);
    const invoiceId = (await call('GET', '/invoices', undefined, 200)).body.items[0].id as string;
    await eventually(
      async () => (await call('GET', `/invoices/${invoiceId}`, undefined, 200)).body,
      (invoice) => invoice.settlementStatus === 'settled',
      { what: 'the invoice collected with the sealed token' },
    );
    return invoiceId;
  }

  it('a subscription paid with a token: collected, and no table holds the token, nor any answer', async () => {
    const call = environmentCall(t, randomUUID());
    const subscription = await collectingSubscription(call, { secretKey: 'sk_sandbox_tokens1234', token: TOKEN });
    expect(subscription.paymentMethod).toEqual({ provider: 'sandbox', tokenHint: secretHint(TOKEN) });
    await collected(call);
    expect(await tablesHolding(TOKEN)).toEqual([]);
    const answers = [
      await call('GET', `/subscriptions/${subscription.id}`, undefined, 200),
      await call('GET', `/subscriptions/${subscription.id}/history`, undefined, 200),
      await call('GET', '/events?limit=500', undefined, 200),
    ];
    expect(answers.filter((answer) => answer.text.includes(TOKEN))).toEqual([]);
    expect(answers[0].body.paymentMethod).toEqual({ provider: 'sandbox', tokenHint: secretHint(TOKEN) });
  });

  it("a customer's default payment method: sealed in its events and read model, and a subscription that takes it is collected", async () => {
    const call = environmentCall(t, randomUUID());
    const customer = (await call('POST', '/customers', { name: 'Acme', defaultPaymentMethod: { provider: 'sandbox', token: TOKEN } }, 201)).body;
    expect(customer.defaultPaymentMethod).toEqual({ provider: 'sandbox', tokenHint: secretHint(TOKEN) });
    const updated = await call('PUT', `/customers/${customer.id}`, { name: 'Acme Oy' }, 200);
    expect(updated.body.defaultPaymentMethod).toEqual({ provider: 'sandbox', tokenHint: secretHint(TOKEN) });
    expect(await tablesHolding(TOKEN)).toEqual([]);
    await collectingSubscription(call, { secretKey: 'sk_sandbox_tokens1234', customerId: customer.id });
    await collected(call);
    expect(await tablesHolding(TOKEN)).toEqual([]);
  });

  it('rows folded from events from before tokens were sealed: the migrations redact their clear tokens to the hint, and the views still show it', async () => {
    const call = environmentCall(t, randomUUID());
    const subscription = await collectingSubscription(call, { secretKey: 'sk_sandbox_tokens1234', token: TOKEN });
    await collected(call);
    // What those rows looked like: the token in clear where each read model keeps it.
    const legacy: [string, string[]][] = [
      ['subscriptions', ['paymentMethod', 'token']],
      ['payment_collections', ['token']],
      ['analytics_subscriptions', ['subscription', 'paymentMethod', 'token']],
    ];
    for (const [table, path] of legacy) {
      await t.dataSource.query(`update ${table} set state = jsonb_set(state, $1, to_jsonb($2::text)) where state #> $1 is not null`, [path, TOKEN]);
    }
    expect((await tablesHolding(TOKEN)).sort()).toEqual(['public.analytics_subscriptions', 'public.payment_collections', 'public.subscriptions']);
    const runner = t.dataSource.createQueryRunner();
    try {
      for (const migration of ALL_MIGRATIONS.map((Migration) => new (Migration as new () => MigrationInterface)())) {
        if (/RedactSubscriptionPaymentTokens|RedactCollectionPaymentTokens|RedactAnalyticsSubscriptionPaymentTokens/.test(migration.name ?? ''))
          await migration.up(runner);
      }
    } finally {
      await runner.release();
    }
    expect(await tablesHolding(TOKEN)).toEqual([]);
    expect((await call('GET', `/subscriptions/${subscription.id}`, undefined, 200)).body.paymentMethod).toEqual({
      provider: 'sandbox',
      tokenHint: secretHint(TOKEN),
    });
  });

  it("a customer row from before tokens were sealed: redacted by its migration, and a subscription taking the default still charges it, read from the customer's events", async () => {
    const call = environmentCall(t, randomUUID());
    const customer = (await call('POST', '/customers', { name: 'Legacy Oy', defaultPaymentMethod: { provider: 'sandbox', token: TOKEN } }, 201)).body;
    // What such a row looked like: the token in clear (its events are append-only: they keep the sealed form here).
    await t.dataSource.query(`update customers set state = jsonb_set(state, '{defaultPaymentMethod,token}', to_jsonb($1::text)) where id = $2`, [
      TOKEN,
      customer.id,
    ]);
    const runner = t.dataSource.createQueryRunner();
    try {
      const redact = ALL_MIGRATIONS.map((Migration) => new (Migration as new () => MigrationInterface)()).find(
        (m) => m.name === 'RedactCustomerPaymentTokens1764701200000',
      );
      await redact!.up(runner);
    } finally {
      await runner.release();
    }
    expect(await tablesHolding(TOKEN)).toEqual([]);
    expect((await call('GET', `/customers/${customer.id}`, undefined, 200)).body.defaultPaymentMethod).toEqual({
      provider: 'sandbox',
      tokenHint: secretHint(TOKEN),
    });
    await collectingSubscription(call, { secretKey: 'sk_sandbox_tokens1234', customerId: customer.id });
    await collected(call);
  });
});
