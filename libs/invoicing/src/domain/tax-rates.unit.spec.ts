import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { toInvoiceView } from '../read-model/invoice-view';
import {
  Invoice,
  InvoiceState,
  RequestedLine,
  decideBookInvoice,
  decideCreateInvoice,
  decideDuplicateInvoice,
  decideUpdateInvoice,
  invoiceEvolver,
  taxCodesOf,
  withCurrentTax,
} from '.';
import { InvoiceBooked, InvoiceEvent, InvoiceUpdated } from './invoice-events';
import { ResolvedTax, TaxRegister } from './tax-code';

/**
 * Drafts are priced at their tax codes' current rates; booked invoices keep
 * the rate they were booked with; credit notes credit at the rates of the
 * invoice they credit.
 */

const metaAt = (now: string = '2025-03-01T10:00:00.000Z', prefix = 'id'): CommandMetadata => metadataAt(now, prefix);
const given = (...events: InvoiceEvent[]): InvoiceState => foldEvents(invoiceEvolver, events);
function invoiceOf(state: InvoiceState): Invoice {
  if (state.status === 'none') throw new Error('expected an invoice');
  return state;
}
const spec = deciderSpec(invoiceEvolver);
const register = (...taxes: ResolvedTax[]): TaxRegister => new Map(taxes.map((tax) => [tax.taxCode!, tax]));

const customer = {
  id: 'cust-1',
  handle: null,
  name: null,
  billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null },
};
const VAT25 = { taxCode: 'VAT', taxable: true, taxRate: 0.25 };
const VAT20 = { taxCode: 'VAT', taxable: true, taxRate: 0.2 };
const VAT_EXEMPT_NOW = { taxCode: 'VAT', taxable: false, taxRate: 0.2 };
const REDUCED10 = { taxCode: 'RED', taxable: true, taxRate: 0.1 };
/** 1000 at VAT (250 at 25%), 333 at RED (33), 500 untaxed */
const items: RequestedLine[] = [
  { quantity: 1, unitAmount: 1000, taxCode: 'VAT' },
  { quantity: 1, unitAmount: 333, taxCode: 'RED' },
  { quantity: 1, unitAmount: 500 },
];
/** The register when the draft was written. */
const then = register(VAT25, REDUCED10);
const draftEvents = decideCreateInvoice({ invoiceId: 'inv-1', customer, currency: 'EUR', date: '2025-02-01', items, taxes: then }, given(), metaAt());
const draft = invoiceOf(given(...draftEvents));

describe('withCurrentTax', () => {
  it('given a draft written at 25 %, when the code is now at 20 %, then its lines and totals are at 20 % (other codes untouched)', () => {
    const priced = withCurrentTax(draft, register(VAT20, REDUCED10));
    expect(priced.lines.map((line) => [line.tax, line.amount, line.taxAmount])).toEqual([
      [VAT20, 1000, 200],
      [REDUCED10, 333, 33],
      [{ taxCode: null, taxable: false, taxRate: 0 }, 500, 0],
    ]);
    expect(priced).toMatchObject({ totalExclVat: 1833, totalVat: 233, totalInclVat: 2066 });
    expect(toInvoiceView(priced)).toMatchObject({ totalDue: 2066, settlementStatus: 'not_settled' });
  });

  it('given a code that is no longer taxable, then its lines carry no tax', () => {
    const priced = withCurrentTax(draft, register(VAT_EXEMPT_NOW));
    expect(priced.lines[0]).toMatchObject({ tax: VAT_EXEMPT_NOW, taxAmount: 0 });
    expect(priced.totalVat).toBe(33);
  });

  it('given the rates the draft was written with, or an empty register, then the draft itself', () => {
    expect(withCurrentTax(draft, register(VAT25, REDUCED10))).toBe(draft);
    expect(withCurrentTax(draft, new Map())).toBe(draft);
  });

  it('given a booked invoice or a credit note, then unchanged whatever the register', () => {
    const booked = invoiceOf(
      given(...draftEvents, ...decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: then }, given(...draftEvents), metaAt())),
    );
    expect(withCurrentTax(booked, register(VAT20))).toBe(booked);
    const reversal = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true, taxes: then }, booked, metaAt());
    const creditNote = invoiceOf(given(...reversal.newStreamEvents));
    expect(withCurrentTax(creditNote, register(VAT20))).toBe(creditNote);
  });

  it('taxCodesOf names each code once', () => {
    expect(taxCodesOf(draft)).toEqual(['VAT', 'RED']);
  });
});

describe('BookInvoice at the current rate', () => {
  it('given a draft written at 25 %, when booked while the code is at 20 %, then InvoiceBooked records the lines and totals at 20 %', () => {
    spec
      .given(draftEvents)
      .when((state) => {
        const [event] = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: register(VAT20, REDUCED10) }, state, metaAt()) as InvoiceBooked[];
        return { ...event.data, lines: event.data.lines!.map((line) => [line.tax.taxRate, line.taxAmount]) };
      })
      .then(
        expect.objectContaining({
          totalExclVat: 1833,
          totalVat: 233,
          totalInclVat: 2066,
          lines: [
            [0.2, 200],
            [0.1, 33],
            [0, 0],
          ],
        }),
      );
  });

  it('given it was booked at 20 %, when folded, then it keeps 20 % whatever the register says later', () => {
    const booked = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: register(VAT20) }, given(...draftEvents), metaAt());
    const invoice = invoiceOf(given(...draftEvents, ...booked));
    expect(invoice.lines[0]).toMatchObject({ tax: VAT20, taxAmount: 200 });
    expect(toInvoiceView(withCurrentTax(invoice, register(VAT25)))).toMatchObject({ totalVat: 233, totalInclVat: 2066 });
  });

  it('given an InvoiceBooked written before lines were recorded on it, when folded, then the draft lines are kept', () => {
    const [booked] = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: then }, given(...draftEvents), metaAt());
    const { lines: _lines, ...legacyData } = booked.data as { lines?: unknown };
    const invoice = invoiceOf(given(...draftEvents, { ...booked, data: legacyData } as InvoiceEvent));
    expect(invoice.lines).toEqual(draft.lines);
  });
});

describe('UpdateInvoice and DuplicateInvoice write today’s rates', () => {
  it('given a draft written at 25 %, when updated without items while the code is at 20 %, then the kept lines are written at 20 %', () => {
    spec
      .given(draftEvents)
      .when((state) => {
        const [event] = decideUpdateInvoice(
          { invoiceId: 'inv-1', date: '2025-02-02', currency: null, taxes: register(VAT20) },
          state,
          metaAt(),
        ) as InvoiceUpdated[];
        return event.data.lines.map((line) => [line.id, line.tax.taxRate, line.taxAmount]);
      })
      .then([
        [draft.lines[0].id, 0.2, 200],
        [draft.lines[1].id, 0.1, 33],
        [draft.lines[2].id, 0, 0],
      ]);
  });

  it('given a draft, when updated with lines naming a code, then they are written at the rate the register has now', () => {
    spec
      .given(draftEvents)
      .when((state) => {
        const [event] = decideUpdateInvoice(
          { invoiceId: 'inv-1', date: '2025-02-02', currency: null, items: [{ quantity: 1, unitAmount: 1000, taxCode: 'VAT' }], taxes: register(VAT20) },
          state,
          metaAt(),
        ) as InvoiceUpdated[];
        return event.data.lines.map((line) => [line.tax, line.taxAmount]);
      })
      .then([[VAT20, 200]]);
  });

  const bookedAt25 = [...draftEvents, ...decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', taxes: then }, given(...draftEvents), metaAt())];

  it('given an invoice booked at 25 %, when duplicated while the code is at 20 %, then the copy is at 20 %', () => {
    spec
      .given(bookedAt25)
      .when((state) =>
        invoiceOf(
          given(
            ...decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false, taxes: register(VAT20, REDUCED10) }, state, metaAt())
              .newStreamEvents,
          ),
        ),
      )
      .then(expect.objectContaining({ type: 'invoice', totalVat: 233, totalInclVat: 2066 }));
  });

  it('given an invoice booked at 25 %, when reversed while the code is at 20 %, then the credit note credits at 25 %, exactly the booked figures', () => {
    spec
      .given(bookedAt25)
      .when((state) =>
        invoiceOf(
          given(
            ...decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true, taxes: register(VAT20, REDUCED10) }, state, metaAt())
              .newStreamEvents,
          ),
        ),
      )
      .then(expect.objectContaining({ type: 'credit_note', totalVat: -283, totalInclVat: -2116 }));
  });
});
