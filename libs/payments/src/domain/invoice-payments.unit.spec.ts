import { foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing/decider-spec';
import { decideCloseInvoicePayment, decideOpenInvoicePayment, InvoicePaymentsEvent, invoicePaymentsEvolver, takenNotSettled } from './invoice-payments';

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
