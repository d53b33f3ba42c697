import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { toInvoiceView } from '../read-model/invoice-view';
import {
  decideAddSettlement,
  decideBookInvoice,
  decideCreateInvoice,
  decideDuplicateInvoice,
  decideMarkInvoiceUncollectible,
  decideVoidInvoice,
  Invoice,
  invoiceEvolver,
  InvoiceEvent,
  InvoiceState,
} from '.';

const NOW = '2025-03-01T10:00:00.000Z';
const metaAt = (now: string = NOW): CommandMetadata => metadataAt(now);
const spec = deciderSpec(invoiceEvolver);
const given = (...events: InvoiceEvent[]): InvoiceState => foldEvents(invoiceEvolver, events);
const invoiceOf = (state: InvoiceState): Invoice => {
  if (state.status === 'none') throw new Error('expected an invoice');
  return state;
};

const customer = { id: 'cust-1', handle: 'c-1', name: 'Acme', billingAddress: null };
const created = decideCreateInvoice(
  { invoiceId: 'inv-1', customer, currency: 'eur', date: '2025-02-01', items: [{ quantity: 2, unitAmount: 1000 }], taxes: new Map() },
  given(),
  metaAt('2025-02-01T09:00:00.000Z'),
);
const booked = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: new Map() }, given(...created), metaAt('2025-02-02T09:00:00.000Z'));
const bookedInvoice = [...created, ...booked];
const settle = (history: InvoiceEvent[], amount: number, reference = 'pay-1') =>
  decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount, reference }, given(...history), metaAt());
const voided = decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, given(...bookedInvoice), metaAt());
const marked = decideMarkInvoiceUncollectible({ invoiceId: 'inv-1' }, given(...bookedInvoice), metaAt());
const creditNote = (() => {
  const { newStreamEvents } = decideDuplicateInvoice(
    { invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true, taxes: new Map() },
    given(...bookedInvoice),
    metaAt(),
  );
  return [...newStreamEvents, ...decideBookInvoice({ invoiceId: 'cn-1', handle: 'CN-000001', taxes: new Map() }, given(...newStreamEvents), metaAt())];
})();

describe('decideVoidInvoice', () => {
  it('given a booked invoice nothing settled, when it is voided, then InvoiceVoided with its customer and currency', () => {
    spec
      .given(bookedInvoice)
      .when((state) => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, state, metaAt()))
      .then([{ type: 'InvoiceVoided', schemaVersion: 1, data: { invoiceId: 'inv-1', customerId: 'cust-1', currency: 'EUR', voidedAt: NOW } }]);
  });

  it('given a booked invoice with a payment under way or succeeded (the payments context says so), when it is voided, then 409 invoice-payment-under-way', () => {
    spec
      .given(bookedInvoice)
      .when((state) => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: true }, state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-payment-under-way' });
  });

  it('given a void invoice, when it is voided again, then nothing is recorded', () => {
    spec
      .given([...bookedInvoice, ...voided])
      .when((state) => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, state, metaAt()))
      .then([]);
  });

  it('given an invoice marked uncollectible, when it is voided, then InvoiceVoided and the mark is gone', () => {
    const history = [...bookedInvoice, ...marked];
    const events = decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, given(...history), metaAt());
    expect(events.map((event) => event.type)).toEqual(['InvoiceVoided']);
    expect(invoiceOf(given(...history, ...events))).toMatchObject({ status: 'void', uncollectible: false });
  });

  it.each<[string, number[]]>([
    ['partly paid', [500]],
    ['paid', [2000]],
    ['paid and refunded in full', [2000, -2000]],
  ])('given a %s invoice, when it is voided, then 409 invoice-paid', (_, amounts) => {
    const history = amounts.reduce<InvoiceEvent[]>((events, amount, i) => [...events, ...settle(events, amount, `pay-${i}`)], bookedInvoice);
    spec
      .given(history)
      .when((state) => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-paid' });
  });

  it('given a draft, when it is voided, then 409 invoice-not-booked', () => {
    spec
      .given(created)
      .when((state) => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
  });

  it('given a booked credit note, when it is voided, then 409 invoice-is-credit-note', () => {
    spec
      .given(creditNote)
      .when((state) => decideVoidInvoice({ invoiceId: 'cn-1', paymentTaken: false }, state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-is-credit-note' });
  });

  it('given no invoice, when it is voided, then 404', () => {
    spec
      .given([])
      .when((state) => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, state, metaAt()))
      .thenThrows({ kind: 'not_found' });
  });

  it('given a void invoice, then it keeps its number and totals, shows nothing due, and takes no settlement or credit note', () => {
    const state = given(...bookedInvoice, ...voided);
    expect(toInvoiceView(invoiceOf(state))).toMatchObject({
      status: 'void',
      handle: 'INV-000001',
      totalInclVat: 2000,
      totalDue: 0,
      settlementStatus: 'not_settled',
      uncollectible: false,
      updatedAt: NOW,
    });
    expect(() => settle([...bookedInvoice, ...voided], 100)).toThrow(expect.objectContaining({ code: 'invoice-void' }));
    expect(() => decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-2', reverse: true, taxes: new Map() }, state, metaAt())).toThrow(
      expect.objectContaining({ code: 'invoice-void' }),
    );
    // A copy into a new draft is how a void invoice is billed again.
    expect(
      decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false, taxes: new Map() }, state, metaAt()).newStreamEvents,
    ).toHaveLength(1);
  });
});

describe('decideMarkInvoiceUncollectible', () => {
  it('given a booked invoice with something due, when it is marked, then InvoiceMarkedUncollectible; the view shows it, still due', () => {
    spec
      .given(bookedInvoice)
      .when((state) => decideMarkInvoiceUncollectible({ invoiceId: 'inv-1' }, state, metaAt()))
      .then([{ type: 'InvoiceMarkedUncollectible', schemaVersion: 1, data: { invoiceId: 'inv-1', markedAt: NOW } }]);
    expect(toInvoiceView(invoiceOf(given(...bookedInvoice, ...marked)))).toMatchObject({ status: 'booked', uncollectible: true, totalDue: 2000 });
  });

  it('given a partly paid invoice, when it is marked, then InvoiceMarkedUncollectible', () => {
    const history = [...bookedInvoice, ...settle(bookedInvoice, 500)];
    expect(decideMarkInvoiceUncollectible({ invoiceId: 'inv-1' }, given(...history), metaAt()).map((event) => event.type)).toEqual([
      'InvoiceMarkedUncollectible',
    ]);
  });

  it('given an uncollectible invoice, when it is marked again, then nothing is recorded', () => {
    spec
      .given([...bookedInvoice, ...marked])
      .when((state) => decideMarkInvoiceUncollectible({ invoiceId: 'inv-1' }, state, metaAt()))
      .then([]);
  });

  it('given an uncollectible invoice, when a partial payment and then the rest settle it, then the mark stays until it is settled', () => {
    const partly = [...bookedInvoice, ...marked, ...settle([...bookedInvoice, ...marked], 500)];
    expect(invoiceOf(given(...partly)).uncollectible).toBe(true);
    const settled = [...partly, ...settle(partly, 1500, 'pay-2')];
    expect(toInvoiceView(invoiceOf(given(...settled)))).toMatchObject({ status: 'booked', settlementStatus: 'settled', totalDue: 0, uncollectible: false });
  });

  it.each<[string, () => InvoiceEvent[], string]>([
    ['a settled invoice', () => [...bookedInvoice, ...settle(bookedInvoice, 2000)], 'invoice-nothing-due'],
    ['a draft', () => created, 'invoice-not-booked'],
    ['a void invoice', () => [...bookedInvoice, ...voided], 'invoice-void'],
  ])('given %s, when it is marked, then 409', (_, history, code) => {
    spec
      .given(history())
      .when((state) => decideMarkInvoiceUncollectible({ invoiceId: 'inv-1' }, state, metaAt()))
      .thenThrows({ kind: 'conflict', code });
  });

  it('given a booked credit note, when it is marked, then 409 invoice-is-credit-note', () => {
    spec
      .given(creditNote)
      .when((state) => decideMarkInvoiceUncollectible({ invoiceId: 'cn-1' }, state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-is-credit-note' });
  });

  it('given a state stored before the mark existed, then it folds and renders as not uncollectible', () => {
    const { uncollectible, ...stored } = invoiceOf(given(...bookedInvoice));
    expect(uncollectible).toBe(false);
    expect(toInvoiceView(stored).uncollectible).toBe(false);
    expect(invoiceOf(invoiceEvolver.evolve(stored, marked[0])).uncollectible).toBe(true);
  });
});
