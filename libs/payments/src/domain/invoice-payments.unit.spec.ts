import { foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing/decider-spec';
import {
  decideCloseInvoicePayment,
  decideOpenInvoicePayment,
  directRefundsNotSettled,
  InvoicePaymentsEvent,
  invoicePaymentsEvolver,
  refundableOfInvoice,
  takenNotSettled,
} from './invoice-payments';
import { Payment, Refund } from './payment';

const meta = metadataAt('2026-03-01T10:00:00.000Z');
const opened = decideOpenInvoicePayment({ invoiceId: 'inv-1', paymentId: 'pay-1' }, invoicePaymentsEvolver.initialState(), meta);

describe('the invoice-payments stream', () => {
  it('given nothing, when a payment opens, then it is the pending one, and among the payments of the invoice', () => {
    expect(foldEvents<ReturnType<typeof invoicePaymentsEvolver.initialState>, InvoicePaymentsEvent>(invoicePaymentsEvolver, opened)).toEqual({
      pendingPaymentId: 'pay-1',
      paymentIds: ['pay-1'],
      taken: [],
    });
  });

  it('given a pending payment, when it fails, then nothing is pending, nothing was taken, and the payment stays among those of the invoice', () => {
    const state = foldEvents(invoicePaymentsEvolver, opened as InvoicePaymentsEvent[]);
    const closed = decideCloseInvoicePayment({ invoiceId: 'inv-1', paymentId: 'pay-1', taken: 0 }, state, meta);
    expect(closed).toEqual([
      { type: 'InvoicePaymentClosed', schemaVersion: 1, data: { invoiceId: 'inv-1', paymentId: 'pay-1', taken: 0, closedAt: '2026-03-01T10:00:00.000Z' } },
    ]);
    expect(foldEvents(invoicePaymentsEvolver, [...opened, ...closed] as InvoicePaymentsEvent[])).toEqual({
      pendingPaymentId: null,
      paymentIds: ['pay-1'],
      taken: [],
    });
  });

  it('given a pending payment, when it succeeds, then what it took is counted until a settlement names it', () => {
    const state = foldEvents(invoicePaymentsEvolver, opened as InvoicePaymentsEvent[]);
    const closed = decideCloseInvoicePayment({ invoiceId: 'inv-1', paymentId: 'pay-1', taken: 6_000 }, state, meta);
    const after = foldEvents(invoicePaymentsEvolver, [...opened, ...closed] as InvoicePaymentsEvent[]);
    expect(after.taken).toEqual([{ paymentId: 'pay-1', amount: 6_000 }]);
    expect(takenNotSettled(after, [])).toBe(6_000);
    expect(takenNotSettled(after, ['other-settlement'])).toBe(6_000);
    expect(takenNotSettled(after, ['pay-1'])).toBe(0);
  });

  it('given a close written before closes said what they took, then it counts as nothing taken', () => {
    const legacy = { type: 'InvoicePaymentClosed', schemaVersion: 1, data: { invoiceId: 'inv-1', paymentId: 'pay-1', closedAt: '2026-03-01T10:00:00.000Z' } };
    const state = foldEvents(invoicePaymentsEvolver, [...opened, legacy] as InvoicePaymentsEvent[]);
    expect(state).toEqual({ pendingPaymentId: null, paymentIds: ['pay-1'], taken: [] });
  });

  it('given another pending payment, when a different one closes, then nothing is written', () => {
    const state = foldEvents(invoicePaymentsEvolver, opened as InvoicePaymentsEvent[]);
    expect(decideCloseInvoicePayment({ invoiceId: 'inv-1', paymentId: 'pay-2', taken: 100 }, state, meta)).toEqual([]);
  });
});

describe('what a direct refund may take of an invoice', () => {
  const refund = (id: string, amount: number, status: Refund['status'], creditNoteId?: string): Refund => ({
    id,
    amount,
    status,
    providerReference: null,
    failureCode: null,
    failureMessage: null,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    ...(creditNoteId ? { creditNoteId } : {}),
  });
  const payment = (refunds: Refund[]): Payment => ({
    status: 'succeeded',
    id: 'pay-1',
    invoiceId: 'inv-1',
    customerId: 'cust-1',
    amount: 15_500,
    currency: 'EUR',
    provider: 'sandbox',
    attempt: 1,
    providerReference: 'sbx_1',
    failureCode: null,
    failureMessage: null,
    retryable: null,
    refundedAmount: 0,
    refunds,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
  });

  it("given direct refunds pending, made, settled, failed and a credit note's, then only the direct ones the invoice does not show count", () => {
    const refunds = [
      refund('r-1', 100, 'pending'),
      refund('r-2', 200, 'succeeded'),
      refund('r-3', 400, 'succeeded'),
      refund('r-4', 800, 'failed'),
      refund('r-5', 1_600, 'pending', 'cn-1'),
    ];
    expect(directRefundsNotSettled([payment(refunds)], ['pay-1', 'r-3'])).toBe(300);
  });

  it('given a paid invoice, a credit note still refunding and a direct refund under way, then what is left', () => {
    const invoicePayments = { pendingPaymentId: null, paymentIds: ['pay-1'], taken: [{ paymentId: 'pay-1', amount: 15_500 }] };
    const settled = { paidThroughPayments: 15_500, creditNoteRefundsOutstanding: 10_000, settlementReferences: ['pay-1'] };
    expect(refundableOfInvoice(settled, invoicePayments, [payment([refund('r-1', 2_000, 'pending')])])).toBe(3_500);
    // Its payment's settlement not on the invoice yet: what it took counts all the same.
    const notYet = { paidThroughPayments: 0, creditNoteRefundsOutstanding: 0, settlementReferences: [] };
    expect(refundableOfInvoice(notYet, invoicePayments, [payment([])])).toBe(15_500);
  });

  it('given a pending payment, when an event of a type it does not know folds, then the state is as it was', () => {
    const state = foldEvents(invoicePaymentsEvolver, opened as InvoicePaymentsEvent[]);
    const unknown = { type: 'InvoicePaymentAudited', schemaVersion: 1, data: { invoiceId: 'inv-1', paymentId: 'pay-1' } } as unknown as InvoicePaymentsEvent;
    expect(invoicePaymentsEvolver.evolve(state, unknown)).toBe(state);
  });
});
