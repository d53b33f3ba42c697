import fc from 'fast-check';
import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import {
  Invoice,
  InvoiceEvent,
  InvoiceState,
  IssueCreditNote,
  RequestedLine,
  TaxRegister,
  decideAddSettlement,
  decideBookInvoice,
  decideCreateInvoice,
  decideIssueCreditNote,
  invoiceEvolver,
  refundableThroughPayments,
} from '.';

// ---------------------------------------------------------------- fixtures

const metaAt = (prefix = 'id'): CommandMetadata => metadataAt('2026-03-01T10:00:00.000Z', prefix);
const given = (...events: InvoiceEvent[]): InvoiceState => foldEvents(invoiceEvolver, events);
const spec = deciderSpec(invoiceEvolver);
const customer = {
  id: 'cust-1',
  handle: 'C-1',
  name: 'Acme',
  billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null },
};
const VAT25 = { taxCode: 'VAT25', taxable: true, taxRate: 0.25 };
const taxes: TaxRegister = new Map([['VAT25', VAT25]]);
/** Seats: 4 × 2500 = 10000 + 2500 tax; Setup: 3000 untaxed. Total 15500. */
const ITEMS: RequestedLine[] = [
  { title: 'Seats', quantity: 4, unitAmount: 2500, taxCode: 'VAT25' },
  { title: 'Setup', quantity: 1, unitAmount: 3000 },
];

function bookedInvoice(items: RequestedLine[] = ITEMS): InvoiceEvent[] {
  const created = decideCreateInvoice({ invoiceId: 'inv-1', customer, currency: 'EUR', date: '2026-02-01', items, taxes }, given(), metaAt('line'));
  return [...created, ...decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes }, given(...created), metaAt())];
}
const draft = decideCreateInvoice({ invoiceId: 'inv-1', customer, currency: 'EUR', items: ITEMS, taxes }, given(), metaAt('line'));
const BOOKED = bookedInvoice();

/** `history` with a settlement the payments context recorded (a payment, or with a negative amount a refund). */
function paid(history: InvoiceEvent[], amount: number, extra: { paymentId?: string; refundedCreditNoteId?: string } = {}): InvoiceEvent[] {
  const settlement = decideAddSettlement(
    { invoiceId: 'inv-1', date: '2026-02-10', amount, reference: `ref-${history.length}`, paymentId: 'pay-1', ...extra },
    given(...history),
    metaAt(),
  );
  return [...history, ...settlement];
}

const issue = (command: Partial<IssueCreditNote>) => (state: InvoiceState) =>
  decideIssueCreditNote({ creditNoteId: 'cn-1', invoiceId: 'inv-1', handle: 'CN-000001', reason: 'other', ...command }, state, metaAt('cnl'));

/** The invoice after a credit note, and the credit note, folded. */
function issued(history: InvoiceEvent[], command: Partial<IssueCreditNote>, id = 'cn-1') {
  const result = decideIssueCreditNote(
    { creditNoteId: id, invoiceId: 'inv-1', handle: 'CN-000001', reason: 'other', ...command },
    given(...history),
    metaAt(id),
  );
  return {
    ...result,
    history: [...history, ...result.invoiceEvents],
    invoice: given(...history, ...result.invoiceEvents) as Invoice,
    creditNote: given(...result.creditNoteEvents) as Invoice,
  };
}

const lineIds = (history: InvoiceEvent[]) => (given(...history) as Invoice).lines.map((line) => line.id);

// ---------------------------------------------------------------- refusals

describe('decideIssueCreditNote refuses', () => {
  it('an invoice that does not exist: not found', () => {
    spec
      .given([])
      .when(issue({ amount: 100 }))
      .thenThrows({ kind: 'not_found' });
  });
  it('a draft: 409 invoice-not-booked', () => {
    spec
      .given(draft)
      .when(issue({ amount: 100 }))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
  });
  it('a credit note: 409 credit-note-cannot-be-reversed', () => {
    const { creditNoteEvents } = issued(BOOKED, { amount: 100 });
    spec
      .given(creditNoteEvents)
      .when(issue({ invoiceId: 'cn-1', amount: 1 }))
      .thenThrows({ kind: 'conflict', code: 'credit-note-cannot-be-reversed' });
  });
  it('an unknown reason, at /reason', () => {
    spec
      .given(BOOKED)
      .when(issue({ amount: 100, reason: 'changed_mind' }))
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/reason' }] });
  });
  it('both lines and amount, and neither, at /amount', () => {
    const [seats] = lineIds(BOOKED);
    spec
      .given(BOOKED)
      .when(issue({ amount: 100, lines: [{ lineId: seats, amount: 100 }] }))
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/amount', detail: expect.stringContaining('not both') }] });
    spec
      .given(BOOKED)
      .when(issue({}))
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/amount' }] });
  });
  it('a negative or fractional disposition amount, at its pointer', () => {
    spec
      .given(BOOKED)
      .when(issue({ amount: 100, creditAmount: -1 }))
      .thenThrows({ errors: [{ pointer: '/creditAmount' }] });
    spec
      .given(BOOKED)
      .when(issue({ amount: 100, refundAmount: 1.5 }))
      .thenThrows({ errors: [{ pointer: '/refundAmount' }] });
  });
  it('more than is left creditable: credit-exceeds-creditable naming what is left', () => {
    const after = issued(BOOKED, { amount: 15_000 }).history;
    spec
      .given(after)
      .when(issue({ amount: 501 }))
      .thenThrows({ code: 'credit-exceeds-creditable', errors: [{ pointer: '/amount', detail: expect.stringContaining('only 500 is left') }] });
  });
  it('a refund beyond what the payments paid and no credit note is refunding yet: refund-exceeds-paid', () => {
    const payment = paid(BOOKED, 15_500);
    spec
      .given(payment)
      .when(issue({ amount: 15_500, refundAmount: 15_501 }))
      .thenThrows({ code: 'refund-exceeds-paid', errors: [{ pointer: '/refundAmount' }] });
    // A settlement added by hand is no payment of the payments context: nothing to refund through it.
    const byHand = [...BOOKED, ...decideAddSettlement({ invoiceId: 'inv-1', date: '2026-02-10', amount: 15_500 }, given(...BOOKED), metaAt())];
    spec
      .given(byHand)
      .when(issue({ amount: 100, refundAmount: 100 }))
      .thenThrows({ code: 'refund-exceeds-paid' });
    // An earlier credit note still refunding 10000 leaves 5500.
    const earlier = issued(payment, { amount: 10_000, refundAmount: 10_000 }).history;
    spec
      .given(earlier)
      .when(issue({ amount: 5500, refundAmount: 5501 }))
      .thenThrows({ code: 'refund-exceeds-paid' });
  });
  it('a refund beyond what direct refunds under way leave (their settlements not on the invoice yet): refund-exceeds-paid', () => {
    const payment = paid(BOOKED, 15_500);
    spec
      .given(payment)
      .when(issue({ amount: 5501, refundAmount: 5501, directRefundsUnderway: 10_000 }))
      .thenThrows({ code: 'refund-exceeds-paid', errors: [{ pointer: '/refundAmount', detail: expect.stringContaining('must not exceed 5500') }] });
    expect(issued(payment, { amount: 5500, refundAmount: 5500, directRefundsUnderway: 10_000 }).history.length).toBeGreaterThan(payment.length);
  });
  it('amounts that do not add up to the part beyond what is due: credit-note-unallocated at the three pointers', () => {
    const partly = paid(BOOKED, 10_000); // 5500 due
    spec
      .given(partly)
      .when(issue({ amount: 7000, refundAmount: 1000 }))
      .thenThrows({
        code: 'credit-note-unallocated',
        errors: [{ pointer: '/refundAmount' }, { pointer: '/creditAmount' }, { pointer: '/outOfBandAmount' }],
        message: expect.stringContaining('must add up to 1500'),
      });
    // Nothing of an unpaid invoice's credit may go elsewhere than to what is due.
    spec
      .given(BOOKED)
      .when(issue({ amount: 100, creditAmount: 100 }))
      .thenThrows({ code: 'credit-note-unallocated' });
  });
  it('lines: unknown, named twice, quantity and amount both or neither, beyond what is left of the line', () => {
    const [seats, setup] = lineIds(BOOKED);
    const refused = (lines: IssueCreditNote['lines'], pointer: string, code = 'validation-failed') =>
      spec
        .given(BOOKED)
        .when(issue({ lines }))
        .thenThrows({ code, errors: [{ pointer }] });
    refused([{ lineId: 'nope', amount: 1 }], '/lines/0/lineId');
    refused(
      [
        { lineId: seats, amount: 1 },
        { lineId: seats, amount: 1 },
      ],
      '/lines/1/lineId',
    );
    refused([{ lineId: seats, amount: 1, quantity: 1 }], '/lines/0');
    refused([{ lineId: seats }], '/lines/0');
    refused([{ lineId: seats, quantity: 4.0001 }], '/lines/0/quantity', 'credit-exceeds-line');
    refused([{ lineId: seats, quantity: 0 }], '/lines/0/quantity');
    refused([{ lineId: setup, amount: 3001 }], '/lines/0/amount', 'credit-exceeds-line');
    refused([{ lineId: setup, amount: 0 }], '/lines/0/amount');
    refused([], '/lines');
    const after = issued(BOOKED, { lines: [{ lineId: seats, quantity: 3 }] }).history;
    spec
      .given(after)
      .when(issue({ lines: [{ lineId: seats, quantity: 1.5 }] }))
      .thenThrows({ code: 'credit-exceeds-line', errors: [{ pointer: '/lines/0/quantity', detail: expect.stringContaining('must not exceed 1') }] });
  });
});

// ---------------------------------------------------------------- decisions

describe('decideIssueCreditNote issues', () => {
  it('given an unpaid invoice, when 5000 is credited, then a booked credit note reducing what is due by 5000, applied to the invoice', () => {
    const { invoiceEvents, creditNoteEvents, invoice, creditNote } = issued(BOOKED, { amount: 5000, reason: 'duplicate', memo: 'Sorry' });
    expect(creditNoteEvents.map((event) => event.type)).toEqual(['InvoiceCreated', 'InvoiceBooked', 'CreditNoteIssued', 'InvoiceSettlementAdded']);
    expect(creditNoteEvents[2]).toEqual({
      type: 'CreditNoteIssued',
      schemaVersion: 1,
      data: {
        creditNoteId: 'cn-1',
        invoiceId: 'inv-1',
        reason: 'duplicate',
        dueReducedAmount: 5000,
        refundAmount: 0,
        creditAmount: 0,
        outOfBandAmount: 0,
        issuedAt: '2026-03-01T10:00:00.000Z',
      },
    });
    expect(invoiceEvents).toEqual([
      {
        type: 'InvoiceSettlementAdded',
        schemaVersion: 1,
        data: {
          invoiceId: 'inv-1',
          date: '2026-03-01',
          amount: 5000,
          reference: 'CN-000001',
          note: null,
          addedAt: '2026-03-01T10:00:00.000Z',
          settlementStatus: 'under_settled',
          creditNoteId: 'cn-1',
        },
      },
    ]);
    expect(creditNote).toMatchObject({ type: 'credit_note', status: 'booked', handle: 'CN-000001', memo: 'Sorry', totalInclVat: -5000, settledAmount: -5000 });
    expect(creditNote.creditNote).toEqual({
      invoiceId: 'inv-1',
      reason: 'duplicate',
      dueReducedAmount: 5000,
      refundAmount: 0,
      creditAmount: 0,
      outOfBandAmount: 0,
    });
    expect(invoice).toMatchObject({ creditedAmount: 5000, settledAmount: 5000 });
  });

  it('given a paid invoice, when split into refund, credit and out of band, then the refund is to be made and the rest leaves the invoice', () => {
    const { invoiceEvents, invoice } = issued(paid(BOOKED, 15_500), { amount: 6000, refundAmount: 3000, creditAmount: 2000, outOfBandAmount: 1000 });
    expect(invoiceEvents.map((event) => [event.data])).toEqual([
      [expect.objectContaining({ amount: 6000, creditNoteId: 'cn-1', refundToMake: 3000, settlementStatus: 'over_settled' })],
      [
        expect.objectContaining({
          amount: -2000,
          reference: 'CN-000001',
          note: expect.stringContaining('credit to the customer'),
          settlementStatus: 'over_settled',
        }),
      ],
      [expect.objectContaining({ amount: -1000, note: expect.stringContaining('out of band'), settlementStatus: 'over_settled' })],
    ]);
    expect(invoice).toMatchObject({ creditedAmount: 6000, settledAmount: 18_500, creditNoteRefundsOutstanding: 3000 });
    expect(refundableThroughPayments(invoice)).toBe(12_500);
    // The refund made for the credit note settles what it was to refund; the invoice is settled again.
    const refunded = given(...paid([...paid(BOOKED, 15_500), ...invoiceEvents], -3000, { refundedCreditNoteId: 'cn-1' })) as Invoice;
    expect(refunded).toMatchObject({ settledAmount: 15_500, creditNoteRefundsOutstanding: 0, paidThroughPayments: 12_500 });
    expect(refundableThroughPayments(refunded)).toBe(12_500);
  });

  it('given a partly paid invoice, reduces what is due first and allocates only the rest', () => {
    const { creditNote, invoice } = issued(paid(BOOKED, 10_000), { amount: 7000, creditAmount: 1500 });
    expect(creditNote.creditNote).toMatchObject({ dueReducedAmount: 5500, creditAmount: 1500 });
    expect(invoice.settledAmount - invoice.totalInclVat).toBe(0);
  });

  it('lines: a quantity credits its share of the line and of its tax; the credit exhausting the line takes exactly what is left', () => {
    const [seats, setup] = lineIds(BOOKED);
    const first = issued(BOOKED, { lines: [{ lineId: seats, quantity: 1.5 }] });
    // 10000 × 1.5 / 4 = 3750; tax 2500 × 3750 / 10000 = 937.5 → 938 (half away from zero)
    expect(first.creditNote.lines).toEqual([
      expect.objectContaining({ id: 'cn-1-1', title: 'Seats', quantity: 1, unitAmount: -3750, amount: -3750, taxAmount: -938, tax: VAT25, discount: null }),
    ]);
    expect(first.invoice.lineCredits).toEqual({ [seats]: { quantity: 1.5, amount: 3750, taxAmount: 938 } });
    const second = issued(
      first.history,
      {
        lines: [
          { lineId: seats, quantity: 2.5 },
          { lineId: setup, amount: 1000 },
        ],
      },
      'cn-2',
    );
    expect(second.creditNote.lines.map((line) => [line.amount, line.taxAmount])).toEqual([
      [-6250, -1562],
      [-1000, 0],
    ]);
    expect(second.invoice.lineCredits[seats]).toEqual({ quantity: 4, amount: 10_000, taxAmount: 2500 });
    expect(second.invoice.creditedAmount).toBe(4688 + 7812 + 1000);
  });

  it('amount: split over the tax treatments in proportion to their totals, each part taxed at its share', () => {
    const { creditNote } = issued(BOOKED, { amount: 6000 });
    // 6000 × 12500 / 15500 = 4838.7 → 4839 (tax 4839 × 2500 / 12500 = 967.8 → 968); the rest 1161 untaxed.
    expect(creditNote.lines.map((line) => [line.title, line.amount, line.taxAmount, line.tax.taxCode])).toEqual([
      ['Credit', -3871, -968, 'VAT25'],
      ['Credit', -1161, 0, null],
    ]);
    expect(creditNote.totalInclVat).toBe(-6000);
  });
});

// ---------------------------------------------------------------- properties

/** Half away from zero of n / d for non-negative n and positive d, computed independently of the kernel. */
function oracleRound(n: bigint, d: bigint): bigint {
  const q = n / d;
  return (n % d) * 2n >= d ? q + 1n : q;
}

describe('credit note arithmetic (properties)', () => {
  it('the credit notes of an invoice never together exceed it: each is issued exactly when what is left covers it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 9000 }), { minLength: 1, maxLength: 8 }), (amounts) => {
        let history = BOOKED;
        let left = 15_500; // the oracle: the invoice's total less what was issued
        amounts.forEach((amount, i) => {
          const state = given(...history) as Invoice;
          const due = Math.max(0, state.totalInclVat - state.settledAmount);
          const command = { amount, outOfBandAmount: Math.max(0, amount - due) };
          let accepted = true;
          try {
            history = issued(history, command, `cn-${i}`).history;
          } catch (error) {
            accepted = false;
            expect(error).toMatchObject({ code: 'credit-exceeds-creditable' });
          }
          expect(accepted).toBe(amount <= left);
          if (accepted) left -= amount;
          expect((given(...history) as Invoice).creditedAmount).toBe(15_500 - left);
        });
      }),
    );
  });

  it('the disposition always adds up to the credit note total, what is due reduced first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 15_500 }),
        fc.integer({ min: 1, max: 15_500 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        (paidAmount, amount, refundShare, creditShare) => {
          const history = paidAmount === 0 ? BOOKED : paid(BOOKED, paidAmount);
          const rest = Math.max(0, amount - (15_500 - paidAmount));
          const refundAmount = Math.min(paidAmount, Math.floor((rest * refundShare) / 100));
          const creditAmount = Math.floor(((rest - refundAmount) * creditShare) / 100);
          const outOfBandAmount = rest - refundAmount - creditAmount;
          const { creditNote, invoice } = issued(history, { amount, refundAmount, creditAmount, outOfBandAmount });
          const d = creditNote.creditNote!;
          expect(d.dueReducedAmount + d.refundAmount + d.creditAmount + d.outOfBandAmount).toBe(-creditNote.totalInclVat);
          expect(d.dueReducedAmount).toBe(Math.min(amount, 15_500 - paidAmount));
          // Once the refund is made the invoice is settled exactly as before the credit note, or less due by what it reduced.
          expect(invoice.totalInclVat - (invoice.settledAmount - refundAmount)).toBe(15_500 - paidAmount - d.dueReducedAmount);
        },
      ),
    );
  });

  it('a line credited by quantities in pieces credits its amount and tax exactly, what the pieces so far credit always the rounded exact share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        // At least a cent per 1/10000 unit: every piece of the quantity is worth something.
        fc.integer({ min: 10_000, max: 1_000_000 }),
        fc.constantFrom(0.1, 0.24, 0.255, 0),
        fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 10 }),
        (units, unitAmount, rate, weights) => {
          const register: TaxRegister = new Map([['T', { taxCode: 'T', taxable: rate > 0, taxRate: rate }]]);
          const created = decideCreateInvoice(
            { invoiceId: 'inv-1', customer, currency: 'EUR', items: [{ quantity: units, unitAmount, taxCode: 'T' }], taxes: register },
            given(),
            metaAt('line'),
          );
          let history = [...created, ...decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: register }, given(...created), metaAt())];
          const line = (given(...history) as Invoice).lines[0];
          // Pieces of the quantity (in 1/10000 units) in proportion to the weights, the last one what is left.
          const whole = BigInt(units) * 10_000n;
          const total = weights.reduce((a, b) => a + b, 0);
          let given10k = 0n;
          let amounts = 0;
          let taxes = 0;
          weights.forEach((weight, i) => {
            const upTo = i === weights.length - 1 ? whole : (whole * BigInt(weights.slice(0, i + 1).reduce((a, b) => a + b, 0))) / BigInt(total);
            const piece = upTo - given10k;
            if (piece === 0n) return;
            given10k = upTo;
            const result = issued(history, { lines: [{ lineId: line.id, quantity: Number(piece) / 10_000 }] }, `cn-${i}`);
            history = result.history;
            const [credit] = result.creditNote.lines;
            // Cumulatively rounded: what all pieces so far credit is the exact share of the quantity so far, rounded.
            expect(amounts - credit.amount).toBe(Number(oracleRound(BigInt(line.amount) * upTo, whole)));
            amounts -= credit.amount;
            taxes -= credit.taxAmount;
            expect(amounts).toBeLessThanOrEqual(line.amount);
            expect(taxes).toBeLessThanOrEqual(line.taxAmount);
          });
          expect([amounts, taxes]).toEqual([line.amount, line.taxAmount]);
        },
      ),
    );
  });
});
