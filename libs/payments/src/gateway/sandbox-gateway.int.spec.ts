import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import { createTestDataSource } from '@billing/testing';
import { ChargeRequest } from './payment-gateway';
import { SandboxGateway } from './sandbox-gateway';

describe('SandboxGateway (real Postgres)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let gateway: SandboxGateway;
  const environmentId = randomUUID();

  beforeAll(async () => {
    // The test database is a copy of the fully migrated template: its table is there.
    ({ dataSource, close } = await createTestDataSource());
    gateway = new SandboxGateway(dataSource.manager, { latencyMs: 5, timeoutMs: 60 });
  });
  afterAll(() => close());

  function request(token: string, overrides: Partial<ChargeRequest> = {}): ChargeRequest {
    return {
      reference: randomUUID(),
      amount: 1250,
      currency: 'EUR',
      token,
      credentials: null,
      environmentId,
      invoiceId: randomUUID(),
      offSession: false,
      returnUrl: null,
      providerReference: null,
      ...overrides,
    };
  }

  async function rows(reference: string, environment = environmentId): Promise<number> {
    const found: unknown[] = await dataSource.query('select 1 from sandbox_gateway_charges where environment_id = $1 and reference = $2', [
      environment,
      reference,
    ]);
    return found.length;
  }

  it('tok_success: succeeded with an sbx_ reference, recorded, and lookup answers the same', async () => {
    const charge = request('tok_success');
    const outcome = await gateway.charge(charge);
    expect(outcome).toEqual({ kind: 'succeeded', providerReference: expect.stringMatching(/^sbx_[0-9a-f]{24}$/) });
    expect(await rows(charge.reference)).toBe(1);
    expect(await gateway.lookup(charge)).toEqual(outcome);
  });

  it('tok_decline: declined hard (card_declined); tok_insufficient_funds: declined soft (insufficient_funds); both recorded', async () => {
    const hard = request('tok_decline');
    expect(await gateway.charge(hard)).toEqual({ kind: 'declined', code: 'card_declined', message: expect.any(String), soft: false });
    expect(await gateway.lookup(hard)).toMatchObject({ kind: 'declined', code: 'card_declined', soft: false });
    const soft = request('tok_insufficient_funds');
    expect(await gateway.charge(soft)).toEqual({ kind: 'declined', code: 'insufficient_funds', message: expect.any(String), soft: true });
    expect(await gateway.lookup(soft)).toMatchObject({ kind: 'declined', code: 'insufficient_funds', soft: true });
  });

  it('an unknown token, an amount that is not positive, a currency that is not ISO: declined hard, nothing recorded', async () => {
    const cases: Array<[ChargeRequest, string]> = [
      [request('tok_nonsense'), 'invalid_token'],
      [request('tok_success', { amount: 0 }), 'invalid_amount'],
      [request('tok_success', { amount: Number.NaN }), 'invalid_amount'],
      [request('tok_success', { currency: 'eur' }), 'invalid_currency'],
    ];
    for (const [charge, code] of cases) {
      expect(await gateway.charge(charge)).toEqual({ kind: 'declined', code, message: expect.any(String), soft: false });
      expect(await rows(charge.reference)).toBe(0);
      expect((await gateway.lookup(charge)).kind).toBe('not_found');
    }
  });

  it('is idempotent per reference: a second charge answers the first outcome and charges nothing more', async () => {
    for (const token of ['tok_success', 'tok_decline', 'tok_insufficient_funds']) {
      const charge = request(token);
      const first = await gateway.charge(charge);
      expect(await gateway.charge(charge)).toEqual(first);
      expect(await rows(charge.reference)).toBe(1);
    }
  });

  it('concurrent charges of one reference make one charge and all answer it', async () => {
    const charge = request('tok_success');
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => gateway.charge(charge)));
    expect(new Set(outcomes.map((outcome) => JSON.stringify(outcome))).size).toBe(1);
    expect(await rows(charge.reference)).toBe(1);
  });

  it('references are per environment', async () => {
    const charge = request('tok_success');
    const here = await gateway.charge(charge);
    const elsewhere = { ...charge, environmentId: randomUUID() };
    expect(await gateway.lookup(elsewhere)).toMatchObject({ kind: 'not_found' });
    const there = await gateway.charge(elsewhere);
    expect(there.kind).toBe('succeeded');
    expect(there).not.toEqual(here);
    expect(await rows(charge.reference, elsewhere.environmentId)).toBe(1);
  });

  it('refuses a reference reused with another amount, currency or token (a caller bug), and keeps the first charge', async () => {
    const charge = request('tok_success');
    const first = await gateway.charge(charge);
    for (const change of [{ amount: 999 }, { currency: 'USD' }, { token: 'tok_decline' }]) {
      await expect(gateway.charge({ ...charge, ...change })).rejects.toThrow(`reference ${charge.reference} was charged already with another request`);
    }
    expect(await gateway.lookup(charge)).toEqual(first);
  });

  it('tok_timeout: the charge is made, the answer is unknown after the timeout; lookup and a repeated charge then answer succeeded', async () => {
    const charge = request('tok_timeout');
    const started = Date.now();
    const outcome = await gateway.charge(charge);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60);
    expect(outcome).toEqual({ kind: 'unknown', message: expect.stringContaining('tok_timeout') });
    expect(await rows(charge.reference)).toBe(1);
    const looked = await gateway.lookup(charge);
    expect(looked).toEqual({ kind: 'succeeded', providerReference: expect.stringMatching(/^sbx_/) });
    expect(await gateway.charge(charge)).toEqual(looked);
    expect(await rows(charge.reference)).toBe(1);
  });

  it('tok_gateway_error: unreachable and nothing recorded; the same reference charged again is a fresh attempt', async () => {
    const charge = request('tok_gateway_error');
    expect(await gateway.charge(charge)).toEqual({ kind: 'unreachable', message: expect.stringContaining('nothing was charged') });
    expect(await rows(charge.reference)).toBe(0);
    expect(await gateway.lookup(charge)).toMatchObject({ kind: 'not_found' });
    const retry = await gateway.charge({ ...charge, token: 'tok_success' });
    expect(retry.kind).toBe('succeeded');
    expect(await gateway.lookup(charge)).toEqual(retry);
  });

  it('lookup of a reference never charged: not_found (no charge was made: charging it is safe)', async () => {
    expect(await gateway.lookup(request('tok_success'))).toEqual({ kind: 'not_found', message: expect.stringContaining('no charge with reference') });
  });

  it('a charge made inside the caller’s transaction survives its rollback, and another process (instance) finds it', async () => {
    const charge = request('tok_success');
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    let outcome;
    try {
      outcome = await withinUnitOfWork(new UnitOfWork(runner.manager), () => gateway.charge(charge));
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    expect(outcome.kind).toBe('succeeded');
    const afterRestart = new SandboxGateway(dataSource.manager, { latencyMs: 0 });
    expect(await afterRestart.lookup(charge)).toEqual(outcome);
  });

  it('takes a real delay, 20 ms by default', async () => {
    const slow = new SandboxGateway(dataSource.manager);
    const started = Date.now();
    await slow.charge(request('tok_success'));
    await slow.lookup(request('tok_success'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(39);
  });
  describe('refunds', () => {
    const refundOf = (charge: ChargeRequest, amount: number, reference: string = randomUUID()) => ({
      reference,
      chargeReference: charge.reference,
      chargeProviderReference: null,
      amount,
      currency: charge.currency,
      credentials: null,
      environmentId: charge.environmentId,
    });

    it('refunds a succeeded charge, idempotent per reference, and never beyond what is left of it', async () => {
      const charge = request('tok_success');
      await gateway.charge(charge);
      const first = refundOf(charge, 1000);
      const made = await gateway.refund(first);
      expect(made).toEqual({ kind: 'succeeded', providerReference: expect.stringMatching(/^sbx_re_[0-9a-f]{24}$/) });
      expect(await gateway.refund(first)).toEqual(made);
      expect(await gateway.lookupRefund(first)).toEqual(made);
      expect(await gateway.refund(refundOf(charge, 251))).toMatchObject({ kind: 'declined', code: 'amount_exceeds_charge' });
      expect(await gateway.refund(refundOf(charge, 250))).toMatchObject({ kind: 'succeeded' });
      await expect(gateway.refund({ ...first, amount: 5 })).rejects.toThrow(/used already/);
    });

    it('concurrent refunds of one charge never exceed it', async () => {
      const charge = request('tok_success');
      await gateway.charge(charge);
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => gateway.refund(refundOf(charge, 400))));
      expect(outcomes.filter((outcome) => outcome.kind === 'succeeded')).toHaveLength(3);
    });

    it('declines a refund of a charge it did not make succeed; lookup of an unknown refund: not_found', async () => {
      const declined = request('tok_decline');
      await gateway.charge(declined);
      expect(await gateway.refund(refundOf(declined, 1))).toMatchObject({ kind: 'declined', code: 'charge_not_found' });
      expect(await gateway.refund(refundOf(request('tok_success'), 1))).toMatchObject({ kind: 'declined', code: 'charge_not_found' });
      expect((await gateway.lookupRefund(refundOf(request('tok_success'), 1))).kind).toBe('not_found');
    });

    it('a tok_timeout charge’s refund is made but answers unknown; lookup then answers succeeded', async () => {
      const charge = request('tok_timeout');
      await gateway.charge(charge);
      const refund = refundOf(charge, 500);
      expect(await gateway.refund(refund)).toMatchObject({ kind: 'unknown' });
      expect(await gateway.lookupRefund(refund)).toMatchObject({ kind: 'succeeded' });
    });
  });
});
