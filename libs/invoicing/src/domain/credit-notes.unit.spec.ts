import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { toInvoiceView } from '../read-model/invoice-view';
import { creditableAmount, creditNoteApplication, decideApplyCreditNote } from './credit-notes';
import {
  Invoice,
  InvoiceState,
  RequestedLine,
  decideAddSettlement,
  decideBookInvoice,
  decideCreateInvoice,
  decideDuplicateInvoice,
  decideUpdateInvoice,
  invoiceEvolver,
} from '.';
import { InvoiceEvent } from './invoice-events';
import { TaxRegister } from './tax-code';

// ---------------------------------------------------------------- fixtures

const metaAt = (now: string = '2025-03-01T10:00:00.000Z', prefix = 'id'): CommandMetadata => metadataAt(now, prefix);
const given = (...events: InvoiceEvent[]): InvoiceState => foldEvents(invoiceEvolver, events);
function invoiceOf(state: InvoiceState): Invoice {
  if (state.status === 'none') throw new Error('expected an invoice');
  return state;
}
const spec = deciderSpec(invoiceEvolver);

const customer = {
  id: 'cust-1',
  handle: null,
  name: null,
  billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null },
};
const VAT25 = { taxCode: 'VAT25', taxable: true, taxRate: 0.25 };
const taxes: TaxRegister = new Map([['VAT25', VAT25]]);
/** 800 + 200 tax: a total of 1000 */
const items: RequestedLine[] = [{ quantity: 1, unitAmount: 800, taxCode: 'VAT25' }];

/** The booked invoice inv-1 (INV-000001, total 1000) as its stream's events. */
const invoiceEvents: InvoiceEvent[] = (() => {
  const created = decideCreateInvoice({ invoiceId: 'inv-1', customer, currency: 'EUR', date: '2025-02-01', items, taxes }, given(), metaAt());
  const booked = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes }, given(...created), metaAt());
  return [...created, ...booked];
})();

/**
 * A booked credit note of inv-1 as its stream's events, and the events the
 * reversal recorded on inv-1. `lines` replaces the negated lines (a partial credit).
 */
function bookedCreditNote(id: string, handle: string, source: InvoiceEvent[] = invoiceEvents, lines?: RequestedLine[]) {
  const reversal = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: id, reverse: true, taxes }, given(...source), metaAt(undefined, id));
  let events = reversal.newStreamEvents;
  if (lines)
    events = [
      ...events,
      ...decideUpdateInvoice({ invoiceId: id, date: '2025-03-01', currency: null, items: lines, taxes }, given(...events), metaAt(undefined, id)),
    ];
  const booked = decideBookInvoice({ invoiceId: id, handle, taxes }, given(...events), metaAt());
  return { creditNote: [...events, ...booked], onInvoice: reversal.sourceEvents };
}

/** The events decideApplyCreditNote adds, folded onto both streams. */
function apply(invoice: InvoiceEvent[], creditNote: InvoiceEvent[]) {
  const cn = invoiceOf(given(...creditNote));
  const result = decideApplyCreditNote(creditNoteApplication(cn)!, given(...invoice), cn, metaAt());
  return { ...result, invoice: [...invoice, ...result.invoiceEvents], creditNote: [...creditNote, ...result.creditNoteEvents] };
}

/** Given the credit note's history, when it is applied to the invoice of `invoice` (the decider's second stream). */
const applyingTo =
  (invoice: InvoiceEvent[], command = { creditNoteId: 'cn-1', invoiceId: 'inv-1' }) =>
  (creditNote: InvoiceState) =>
    decideApplyCreditNote(command, given(...invoice), creditNote, metaAt());

const partial = (quantity: number): RequestedLine[] => [{ quantity, unitAmount: -800, taxCode: 'VAT25' }];

// ---------------------------------------------------------------- specs

describe('decideApplyCreditNote', () => {
  it('given a booked invoice of 1000 and its booked full credit note, when applied, then a settlement of 1000 on the invoice and of −1000 on the credit note: both settled', () => {
    const { creditNote, onInvoice } = bookedCreditNote('cn-1', 'CN-000001');
    spec
      .given(creditNote)
      .when(applyingTo([...invoiceEvents, ...onInvoice]))
      .then({
        invoiceEvents: [
          {
            type: 'InvoiceSettlementAdded',
            schemaVersion: 1,
            data: {
              invoiceId: 'inv-1',
              date: '2025-03-01',
              amount: 1000,
              reference: 'CN-000001',
              note: null,
              addedAt: '2025-03-01T10:00:00.000Z',
              settlementStatus: 'settled',
              creditNoteId: 'cn-1',
            },
          },
        ],
        creditNoteEvents: [
          {
            type: 'InvoiceSettlementAdded',
            schemaVersion: 1,
            data: {
              invoiceId: 'cn-1',
              date: '2025-03-01',
              amount: -1000,
              reference: 'INV-000001',
              note: null,
              addedAt: '2025-03-01T10:00:00.000Z',
              settlementStatus: 'settled',
              appliedToInvoiceId: 'inv-1',
            },
          },
        ],
      });
    const result = apply([...invoiceEvents, ...onInvoice], creditNote);
    expect(toInvoiceView(invoiceOf(given(...result.invoice)))).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
    expect(toInvoiceView(invoiceOf(given(...result.creditNote)))).toMatchObject({ type: 'credit_note', settlementStatus: 'settled', totalDue: 0 });
    expect(creditableAmount(invoiceOf(given(...result.invoice)))).toBe(0);
  });

  it('given an invoice already fully credited, when a second full credit note is applied, then 409 credit-exceeds-invoice naming 0 still creditable', () => {
    const first = bookedCreditNote('cn-1', 'CN-000001');
    const second = bookedCreditNote('cn-2', 'CN-000002', [...invoiceEvents, ...first.onInvoice]);
    const credited = apply([...invoiceEvents, ...first.onInvoice, ...second.onInvoice], first.creditNote).invoice;
    spec
      .given(second.creditNote)
      .when(applyingTo(credited, { creditNoteId: 'cn-2', invoiceId: 'inv-1' }))
      .thenThrows({ kind: 'conflict', code: 'credit-exceeds-invoice', message: expect.stringContaining('0 is still creditable') });
  });

  it('given an invoice credited 600 of 1000, when a credit note of 500 is applied, then 409 naming 400 still creditable; one of 400 passes and fully credits it', () => {
    const first = bookedCreditNote('cn-1', 'CN-000001', invoiceEvents, partial(0.6));
    const credited = apply([...invoiceEvents, ...first.onInvoice], first.creditNote).invoice;
    expect(creditableAmount(invoiceOf(given(...credited)))).toBe(400);
    expect(toInvoiceView(invoiceOf(given(...credited)))).toMatchObject({ settlementStatus: 'under_settled', totalDue: 400 });

    const tooMuch = bookedCreditNote('cn-2', 'CN-000002', credited, partial(0.5));
    spec
      .given(tooMuch.creditNote)
      .when(applyingTo(credited, { creditNoteId: 'cn-2', invoiceId: 'inv-1' }))
      .thenThrows({ code: 'credit-exceeds-invoice', message: expect.stringContaining('400 is still creditable') });

    const rest = bookedCreditNote('cn-3', 'CN-000003', credited, partial(0.4));
    const done = apply([...credited, ...rest.onInvoice], rest.creditNote).invoice;
    expect(invoiceOf(given(...done))).toMatchObject({ creditedAmount: 1000, settledAmount: 1000 });
  });

  it('given a paid invoice, when its full credit note is applied, then it is over-settled (the customer is owed 1000), since payments do not count against what is creditable', () => {
    const paid = [...invoiceEvents, ...decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount: 1000 }, given(...invoiceEvents), metaAt())];
    const { creditNote, onInvoice } = bookedCreditNote('cn-1', 'CN-000001', paid);
    spec
      .given(creditNote)
      .when((state) => applyingTo([...paid, ...onInvoice])(state).invoiceEvents.map((event) => event.data))
      .then([expect.objectContaining({ amount: 1000, settlementStatus: 'over_settled', creditNoteId: 'cn-1' })]);
    const credited = apply([...paid, ...onInvoice], creditNote).invoice;
    expect(toInvoiceView(invoiceOf(given(...credited)))).toMatchObject({ settlementStatus: 'over_settled', totalDue: -1000 });
    expect(invoiceOf(given(...credited)).creditedAmount).toBe(1000);
  });

  it('given a "credit note" whose lines add to the invoice, when applied, then 409 credit-note-wrong-sign', () => {
    const { creditNote, onInvoice } = bookedCreditNote('cn-1', 'CN-000001', invoiceEvents, [{ quantity: 1, unitAmount: 100 }]);
    spec
      .given(creditNote)
      .when(applyingTo([...invoiceEvents, ...onInvoice]))
      .thenThrows({ kind: 'conflict', code: 'credit-note-wrong-sign' });
  });

  it('given a credit note with a total of 0, when applied, then nothing is recorded on either stream', () => {
    const { creditNote, onInvoice } = bookedCreditNote('cn-1', 'CN-000001', invoiceEvents, [{ quantity: 0, unitAmount: -800 }]);
    spec
      .given(creditNote)
      .when(applyingTo([...invoiceEvents, ...onInvoice]))
      .then({ invoiceEvents: [], creditNoteEvents: [] });
  });

  it('given no credit note, when applied, then 404', () => {
    spec
      .given([])
      .when(applyingTo(invoiceEvents))
      .thenThrows({ kind: 'not_found', code: 'not-found', message: expect.stringContaining('cn-1') });
  });

  it('given a booked credit note but no invoice, when applied, then 404', () => {
    const { creditNote } = bookedCreditNote('cn-1', 'CN-000001');
    spec
      .given(creditNote)
      .when(applyingTo([]))
      .thenThrows({ kind: 'not_found', code: 'not-found', message: expect.stringContaining('inv-1') });
  });

  it('given a draft credit note, or one crediting another invoice, when applied, then 409 invoice-not-booked', () => {
    const { creditNote } = bookedCreditNote('cn-1', 'CN-000001');
    const draft = creditNote.slice(0, 1);
    spec.given(draft).when(applyingTo(invoiceEvents)).thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
    const otherInvoice = decideCreateInvoice({ invoiceId: 'inv-9', customer, currency: 'EUR', items, taxes }, given(), metaAt());
    const otherBooked = [...otherInvoice, ...decideBookInvoice({ invoiceId: 'inv-9', handle: 'INV-000009', taxes }, given(...otherInvoice), metaAt())];
    spec
      .given(creditNote)
      .when(applyingTo(otherBooked, { creditNoteId: 'cn-1', invoiceId: 'inv-9' }))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
  });

  it('given a booked credit note of an invoice that is (in the state given) still a draft, when applied, then 409 invoice-not-booked', () => {
    const { creditNote } = bookedCreditNote('cn-1', 'CN-000001');
    spec
      .given(creditNote)
      .when(applyingTo(invoiceEvents.slice(0, 1)))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-booked', message: expect.stringContaining('inv-1 is not booked') });
  });

  it('given a plain settlement on the invoice, then it does not count as credited', () => {
    const paid = decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount: 300 }, given(...invoiceEvents), metaAt());
    expect(invoiceOf(given(...invoiceEvents, ...paid))).toMatchObject({ settledAmount: 300, creditedAmount: 0 });
  });
});

describe('creditNoteApplication', () => {
  it('is null for invoices, draft credit notes and nothing; names both documents for a booked credit note', () => {
    const { creditNote } = bookedCreditNote('cn-1', 'CN-000001');
    expect(creditNoteApplication(given(...invoiceEvents))).toBeNull();
    expect(creditNoteApplication(given(creditNote[0]))).toBeNull();
    expect(creditNoteApplication(given())).toBeNull();
    expect(creditNoteApplication(given(...creditNote))).toEqual({ creditNoteId: 'cn-1', invoiceId: 'inv-1' });
  });
});

describe('decideDuplicateInvoice with reverse, against what is creditable', () => {
  it('given a fully credited invoice, when reversed again, then 409 credit-exceeds-invoice', () => {
    const { creditNote, onInvoice } = bookedCreditNote('cn-1', 'CN-000001');
    const credited = apply([...invoiceEvents, ...onInvoice], creditNote).invoice;
    spec
      .given(credited)
      .when((state) => decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-2', reverse: true, taxes }, state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'credit-exceeds-invoice' });
  });

  it('given a partly credited invoice, when reversed, then a draft credit note (booking it checks the amount)', () => {
    const first = bookedCreditNote('cn-1', 'CN-000001', invoiceEvents, partial(0.5));
    const credited = apply([...invoiceEvents, ...first.onInvoice], first.creditNote).invoice;
    spec
      .given(credited)
      .when((state) => decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-2', reverse: true, taxes }, state, metaAt()).newStreamEvents[0].data)
      .then(expect.objectContaining({ type: 'credit_note', creditedInvoiceId: 'inv-1' }));
  });
});
