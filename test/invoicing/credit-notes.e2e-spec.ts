import { randomUUID } from 'node:crypto';
import { EventStore } from '@billing/event-store';
import { invoiceStream } from '@billing/invoicing';
import { CreditNoteRefundsReactor, creditNoteRefundId } from '@billing/payments';
import { environmentCall, EnvironmentCall, eventually, expectProblem, startTestApp, TestApp } from '@billing/testing';
import { customer, expectReadModelMatchesStream } from './invoicing-helpers';

/**
 * Credit notes with a disposition (POST /invoices/{id}/credit-notes) over
 * HTTP against real Postgres: the split of a paid invoice's credit into a
 * refund (made through the sandbox provider), credit and out of band; line
 * credits with their tax; an amount credit reducing what is due; every 422;
 * the 409s; two concurrent credit notes; another environment.
 *
 * The invoice used throughout, by hand: line A 4 × 2500 = 10000 + 25% tax
 * 2500; line B 1 × 3000 untaxed. Totals: excl 13000, vat 2500, incl 15500.
 */
describe('Credit notes with a disposition', () => {
  const SECRET = `sk_sandbox_${randomUUID().replace(/-/g, '')}`;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function environment(): Promise<{ id: string; call: EnvironmentCall }> {
    const id = randomUUID();
    const call = environmentCall(t, id);
    await call('POST', '/tax-codes', { code: 'VAT25', rate: 0.25, taxable: true }, 201);
    await call('POST', '/paymentproviders/enable', { name: 'sandbox', credentials: { secretKey: SECRET } }, 200);
    return { id, call };
  }

  /** The invoice above, booked; answers it. */
  async function bookedInvoice(call: EnvironmentCall): Promise<any> {
    const items = [
      { title: 'Seats', quantity: 4, unitAmount: 2500, taxCode: 'VAT25' },
      { title: 'Setup', quantity: 1, unitAmount: 3000 },
    ];
    const draft = (await call('POST', '/invoices', { customer: customer(), currency: 'EUR', items }, 201)).body;
    return (await call('PUT', `/invoices/${draft.id}/book`, {}, 200)).body;
  }

  async function paidInvoice(call: EnvironmentCall, amount?: number): Promise<any> {
    const invoice = await bookedInvoice(call);
    const payment = (
      await call(
        'POST',
        '/payments',
        { invoiceId: invoice.id, ...(amount === undefined ? {} : { amount }), paymentMethod: { provider: 'sandbox', token: 'tok_success' } },
        201,
      )
    ).body;
    expect(payment.status).toBe('succeeded');
    const due = 15_500 - payment.amount;
    const settled = await eventually(
      async () => (await call('GET', `/invoices/${invoice.id}`)).body,
      (current) => current.totalDue === due,
      { what: 'the payment settles the invoice' },
    );
    return { ...settled, paymentId: payment.id };
  }

  it('splits a paid invoice into refund, credit and out of band; the refund is made through the sandbox provider exactly once', async () => {
    const { id, call } = await environment();
    const invoice = await paidInvoice(call);
    const body = { amount: 6000, reason: 'product_unsatisfactory', memo: 'Two seats unused', refundAmount: 3000, creditAmount: 2000, outOfBandAmount: 1000 };
    const issued = await call('POST', `/invoices/${invoice.id}/credit-notes`, body, 201);
    expect(issued.headers.get('location')).toBe(`/invoices/${issued.body.id}`);
    expect(issued.body).toMatchObject({
      type: 'credit_note',
      status: 'booked',
      handle: 'CN-000001',
      memo: 'Two seats unused',
      totalInclVat: -6000,
      totalDue: 0,
      settlementStatus: 'settled',
      creditedAmount: 0,
      creditNote: {
        invoiceId: invoice.id,
        reason: 'product_unsatisfactory',
        dueReducedAmount: 0,
        refundAmount: 3000,
        creditAmount: 2000,
        outOfBandAmount: 1000,
      },
    });
    // 6000 over the two treatments in proportion to their totals (12500 : 3000): 4839 with tax 968, 1161 untaxed.
    expect(issued.body.items.map((line: any) => [line.title, line.amount, line.taxAmount, line.tax.taxCode])).toEqual([
      ['Credit', -3871, -968, 'VAT25'],
      ['Credit', -1161, 0, null],
    ]);
    expect(issued.body.totalExclVat + issued.body.totalVat).toBe(-6000);

    const payments = await eventually(
      async () => (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoice.id}`)}`)).body.items,
      (items: any[]) => items[0]?.refunds.length === 1 && items[0].refunds[0].status === 'succeeded',
      { what: 'the credit note refund is made' },
    );
    expect(payments[0]).toMatchObject({ id: invoice.paymentId, refundedAmount: 3000 });
    expect(payments[0].refunds[0]).toMatchObject({ amount: 3000, status: 'succeeded', creditNoteId: issued.body.id });
    const [gateway] = await t.dataSource.query(
      `select count(*)::int as n, sum(amount)::int as total from sandbox_gateway_refunds where environment_id = $1 and outcome->>'kind' = 'succeeded'`,
      [id],
    );
    expect(gateway).toEqual({ n: 1, total: 3000 });
    expect(payments[0].refunds[0].id).toBe(creditNoteRefundId(issued.body.id, invoice.paymentId));

    // The reactor run again on the same event (a crash before its checkpoint moved) refunds nothing twice.
    const events = await t.app.get(EventStore).readStream(invoiceStream(id, issued.body.id));
    const issuedEvent = events.find((event) => event.type === 'CreditNoteIssued')!;
    await t.app.get(CreditNoteRefundsReactor).react([issuedEvent]);
    await t.app.get(CreditNoteRefundsReactor).react([issuedEvent]);
    const [again] = await t.dataSource.query(`select count(*)::int as n from sandbox_gateway_refunds where environment_id = $1`, [id]);
    expect(again.n).toBe(1);
    expect((await call('GET', `/payments/${invoice.paymentId}`, undefined, 200)).body.refunds).toHaveLength(1);

    // Credited 6000; 2000 left as credit and 1000 out of band leave the invoice, the refund's settlement takes back 3000: settled.
    const credited = await eventually(
      async () => (await call('GET', `/invoices/${invoice.id}`)).body,
      (current) => current.settlements.length === 5,
      { what: 'the refund unsettles the invoice' },
    );
    expect(credited).toMatchObject({ creditedAmount: 6000, totalDue: 0, settlementStatus: 'settled', creditNote: null });
    expect(credited.settlements.map((s: any) => s.amount)).toEqual([15_500, 6000, -2000, -1000, -3000]);
    await expectReadModelMatchesStream(t, invoice.id, id, t.token([id]));

    // What was paid is partly refunded (3000) and nothing else is refundable twice: 12500 left.
    const more = await call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 9500, reason: 'other', refundAmount: 9500 });
    expect(more.status).toBe(201);
    await eventually(
      async () => (await call('GET', `/payments?filter=${encodeURIComponent(`invoiceId eq ${invoice.id}`)}`)).body.items[0],
      (payment: any) => payment.refundedAmount === 12_500,
      { what: 'the second refund' },
    );
    expectProblem(
      await call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 1, reason: 'other', creditAmount: 1 }),
      422,
      'credit-exceeds-creditable',
      '/amount',
    );
    const [twice] = await t.dataSource.query(`select count(*)::int as n from sandbox_gateway_refunds where environment_id = $1`, [id]);
    expect(twice.n).toBe(2);
  });

  it('refunds over several payments, oldest first, one refund per payment', async () => {
    const { call } = await environment();
    const invoice = await paidInvoice(call, 10_000);
    const second = (await call('POST', '/payments', { invoiceId: invoice.id, paymentMethod: { provider: 'sandbox', token: 'tok_success' } }, 201)).body;
    await eventually(
      async () => (await call('GET', `/invoices/${invoice.id}`)).body,
      (current) => current.totalDue === 0,
      { what: 'both payments settle the invoice' },
    );
    const issued = (await call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 12_000, reason: 'fraudulent', refundAmount: 12_000 }, 201)).body;
    const refunded = async (paymentId: string) => (await call('GET', `/payments/${paymentId}`, undefined, 200)).body;
    const first = await eventually(
      () => refunded(invoice.paymentId),
      (payment) => payment.refundedAmount === 10_000,
      { what: 'the first payment refunded' },
    );
    const other = await eventually(
      () => refunded(second.id),
      (payment) => payment.refundedAmount === 2000,
      { what: 'the second payment refunded' },
    );
    expect([first.refunds, other.refunds].map((refunds) => refunds.map((r: any) => [r.amount, r.creditNoteId]))).toEqual([
      [[10_000, issued.id]],
      [[2000, issued.id]],
    ]);
    await eventually(
      async () => (await call('GET', `/invoices/${invoice.id}`)).body,
      (current) => current.totalDue === 0 && current.settlements.length === 5,
      { what: 'the refunds unsettle the invoice back to settled' },
    );
  });

  it('credits part of a line by quantity and by amount, its tax following the line; the last credit takes what is left', async () => {
    const { call } = await environment();
    const invoice = await bookedInvoice(call);
    const [seats, setup] = invoice.items;
    const first = await call('POST', `/invoices/${invoice.id}/credit-notes`, { lines: [{ lineId: seats.id, quantity: 1.5 }], reason: 'order_change' }, 201);
    // 10000 × 1.5 / 4 = 3750, tax 2500 × 3750 / 10000 = 937.5 → 938; all of it reduces what is due.
    expect(first.body.items).toEqual([expect.objectContaining({ title: 'Seats', quantity: 1, unitAmount: -3750, amount: -3750, taxAmount: -938 })]);
    expect(first.body.creditNote).toMatchObject({ dueReducedAmount: 4688, refundAmount: 0, creditAmount: 0, outOfBandAmount: 0 });
    expectProblem(
      await call('POST', `/invoices/${invoice.id}/credit-notes`, { lines: [{ lineId: seats.id, quantity: 2.5001 }], reason: 'order_change' }),
      422,
      'credit-exceeds-line',
      '/lines/0/quantity',
    );
    const second = await call(
      'POST',
      `/invoices/${invoice.id}/credit-notes`,
      {
        lines: [
          { lineId: seats.id, quantity: 2.5 },
          { lineId: setup.id, amount: 1000 },
        ],
        reason: 'order_change',
      },
      201,
    );
    expect(second.body.items.map((line: any) => [line.amount, line.taxAmount])).toEqual([
      [-6250, -1562],
      [-1000, 0],
    ]);
    const after = (await call('GET', `/invoices/${invoice.id}`)).body;
    expect(after).toMatchObject({ creditedAmount: 4688 + 7812 + 1000, totalDue: 15_500 - 13_500 });
    expectProblem(
      await call('POST', `/invoices/${invoice.id}/credit-notes`, { lines: [{ lineId: seats.id, amount: 1 }], reason: 'other' }),
      422,
      'credit-exceeds-line',
      '/lines/0/lineId',
    );
    expectProblem(
      await call('POST', `/invoices/${invoice.id}/credit-notes`, { lines: [{ lineId: setup.id, amount: 2001 }], reason: 'other' }),
      422,
      'credit-exceeds-line',
      '/lines/0/amount',
    );
  });

  it('an amount credit on an unpaid invoice reduces totalDue; beyond what is due the rest must be allocated', async () => {
    const { call } = await environment();
    const invoice = await paidInvoice(call, 10_000);
    const issued = await call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 5000, reason: 'duplicate' }, 201);
    expect(issued.body.creditNote).toMatchObject({ dueReducedAmount: 5000, refundAmount: 0 });
    expect((await call('GET', `/invoices/${invoice.id}`)).body).toMatchObject({ totalDue: 500, settlementStatus: 'under_settled', creditedAmount: 5000 });
    const unallocated = await call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 2000, reason: 'duplicate' });
    expectProblem(unallocated, 422, 'credit-note-unallocated', '/refundAmount');
    expect(unallocated.body.detail).toContain('1500');
    await call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 2000, reason: 'duplicate', outOfBandAmount: 1500 }, 201);
    expect((await call('GET', `/invoices/${invoice.id}`)).body).toMatchObject({ totalDue: 0, settlementStatus: 'settled', creditedAmount: 7000 });
  });

  it('answers every invalid request with a 422 and its pointer', async () => {
    const { call } = await environment();
    const invoice = await paidInvoice(call, 5000);
    const post = (body: unknown) => call('POST', `/invoices/${invoice.id}/credit-notes`, body);
    const line = invoice.items[1].id;
    expectProblem(await post({ amount: 100, lines: [{ lineId: line, amount: 100 }], reason: 'other' }), 422, 'validation-failed', '/amount');
    expectProblem(await post({ reason: 'other' }), 422, 'validation-failed', '/amount');
    expectProblem(await post({ lines: [{ lineId: line, quantity: 2 }], reason: 'other' }), 422, 'credit-exceeds-line', '/lines/0/quantity');
    expectProblem(await post({ lines: [{ lineId: line, quantity: 1, amount: 1 }], reason: 'other' }), 422, 'validation-failed', '/lines/0');
    expectProblem(await post({ lines: [{ lineId: randomUUID(), amount: 1 }], reason: 'other' }), 422, 'validation-failed', '/lines/0/lineId');
    expectProblem(await post({ amount: 15_501, reason: 'other' }), 422, 'credit-exceeds-creditable', '/amount');
    expectProblem(await post({ amount: 11_000, reason: 'other', refundAmount: 400, creditAmount: 0 }), 422, 'credit-note-unallocated', '/creditAmount');
    expectProblem(await post({ amount: 15_500, reason: 'other', refundAmount: 5001, outOfBandAmount: -1 }), 422, 'validation-failed', '/outOfBandAmount');
    expectProblem(await post({ amount: 15_500, reason: 'other', refundAmount: 5001 }), 422, 'refund-exceeds-paid', '/refundAmount');
    expectProblem(await post({ amount: 100, reason: 'changed_mind' }), 422, 'validation-failed', '/reason');
    expectProblem(await post({ amount: 100, reason: 'other', currency: 'EUR' }), 422, 'validation-failed');
    expectProblem(await post({ amount: 100.5, reason: 'other' }), 422, 'validation-failed', '/amount');
    // Nothing was issued: the next credit note still gets the first number.
    const issued = await post({ amount: 15_500, reason: 'other', refundAmount: 5000 });
    expect(issued.status).toBe(201);
    expect(issued.body.handle).toBe('CN-000001');
  });

  it('409 for a draft, a credit note, a stale If-Match; 404 for an unknown invoice and for another environment', async () => {
    const { id, call } = await environment();
    const draft = (await call('POST', '/invoices', { customer: customer(), currency: 'EUR', items: [{ quantity: 1, unitAmount: 100 }] }, 201)).body;
    expectProblem(await call('POST', `/invoices/${draft.id}/credit-notes`, { amount: 10, reason: 'other' }), 409, 'invoice-not-booked');
    const invoice = await bookedInvoice(call);
    const creditNote = (await call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 10, reason: 'other' }, 201)).body;
    expectProblem(await call('POST', `/invoices/${creditNote.id}/credit-notes`, { amount: 1, reason: 'other' }), 409, 'credit-note-cannot-be-reversed');
    const stale = await t.request('POST', `/invoices/${invoice.id}/credit-notes`, {
      environment: id,
      token: t.token([id]),
      headers: { 'if-match': '"2"' },
      body: { amount: 10, reason: 'other' },
    });
    expectProblem(stale, 409, 'version-conflict');
    expectProblem(await call('POST', `/invoices/${randomUUID()}/credit-notes`, { amount: 1, reason: 'other' }), 404, 'not-found');
    const other = environmentCall(t, randomUUID());
    expectProblem(await other('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 1, reason: 'other' }), 404, 'not-found');
  });

  it("a credit note's refund racing a direct refund of the same payment: never more promised than paid, and what a credit note records is refunded", async () => {
    const { id, call } = await environment();
    const refundedAtGateway = async () =>
      (
        await t.dataSource.query(
          `select coalesce(sum(amount), 0)::int as n from sandbox_gateway_refunds where environment_id = $1 and outcome->>'kind' = 'succeeded'`,
          [id],
        )
      )[0].n as number;
    let promised = 0;
    for (let round = 0; round < 4; round++) {
      const invoice = await paidInvoice(call);
      // Each fits alone (15500 paid); together they would refund 20000.
      const [creditNote, direct] = await Promise.all([
        call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 10_000, reason: 'other', refundAmount: 10_000 }),
        call('PUT', `/payments/${invoice.paymentId}/refund`, { amount: 10_000 }),
      ]);
      const issued = creditNote.status === 201;
      if (issued) expectProblem(direct, 422, 'refund-exceeds-payment');
      else expect({ creditNote: creditNote.body.type, direct: direct.status }).toEqual({ creditNote: '/problems/refund-exceeds-paid', direct: 200 });
      promised += 10_000;
      // What the credit note records as its refund is made in full.
      const payment = await eventually(
        async () => (await call('GET', `/payments/${invoice.paymentId}`, undefined, 200)).body,
        (current) => current.refundedAmount === 10_000,
        { what: 'the one refund made' },
      );
      expect(payment.refunds.map((refund: any) => [refund.amount, refund.status, refund.creditNoteId ?? null])).toEqual([
        [10_000, 'succeeded', issued ? creditNote.body.id : null],
      ]);
    }
    expect(await refundedAtGateway()).toBe(promised);
  });

  it('a direct refund right after a credit note promised a refund, and a credit note right after a direct refund: each leaves the other its money', async () => {
    const { call } = await environment();
    const first = await paidInvoice(call);
    await call('POST', `/invoices/${first.id}/credit-notes`, { amount: 10_000, reason: 'other', refundAmount: 10_000 }, 201);
    expectProblem(await call('PUT', `/payments/${first.paymentId}/refund`, { amount: 5501 }), 422, 'refund-exceeds-payment');
    const second = await paidInvoice(call);
    await call('PUT', `/payments/${second.paymentId}/refund`, { amount: 10_000 }, 200);
    expectProblem(await call('POST', `/invoices/${second.id}/credit-notes`, { amount: 5501, reason: 'other', refundAmount: 5501 }), 422, 'refund-exceeds-paid');
  });

  it('two concurrent credit notes that together exceed the invoice: one is issued, the other refused', async () => {
    const { call } = await environment();
    const invoice = await bookedInvoice(call);
    const answers = await Promise.all([
      call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 10_000, reason: 'other' }),
      call('POST', `/invoices/${invoice.id}/credit-notes`, { amount: 10_000, reason: 'other' }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422]);
    expectProblem(
      answers.find((answer) => answer.status === 422)!,
      422,
      'credit-exceeds-creditable',
    );
    expect((await call('GET', `/invoices/${invoice.id}`)).body).toMatchObject({ creditedAmount: 10_000, totalDue: 5500 });
  });
});
