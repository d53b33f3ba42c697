import fc from 'fast-check';
import { Invoice, InvoiceEvent, invoiceEvolver, InvoiceLine, InvoiceState } from '@billing/invoicing';
import { evolveTrackedInvoice, NO_INVOICE, TrackedInvoiceState } from './tracked-invoice';

const at = '2026-02-01T10:00:00.000Z';
const customer = (name: string | null) => ({ id: 'customer-1', handle: 'C-1', name, billingAddress: null as never });
const line = (discountAmount: number, amount = 1_000) =>
  ({ id: `line-${amount}-${discountAmount}`, discountAmount, amount, taxAmount: 0 }) as unknown as InvoiceLine;
const event = (type: InvoiceEvent['type'], data: Record<string, unknown>) => ({ type, data }) as unknown as InvoiceEvent;
const created = (fields: Record<string, unknown> = {}) =>
  event('InvoiceCreated', {
    invoiceId: 'invoice-1',
    type: 'invoice',
    customer: customer('Acme Oy'),
    customerId: 'customer-1',
    currency: 'EUR',
    date: '2026-02-01',
    dueDate: '2026-02-15',
    memo: null,
    lines: [line(300), line(200)],
    creditedInvoiceId: null,
    duplicatedFromInvoiceId: null,
    createdAt: at,
    ...fields,
  });
const booked = (fields: Record<string, unknown> = {}) =>
  event('InvoiceBooked', {
    invoiceId: 'invoice-1',
    type: 'invoice',
    handle: 'INV-1',
    date: '2026-02-02',
    dueDate: '2026-02-16',
    totalExclVat: 1_000,
    totalVat: 240,
    totalInclVat: 1_240,
    creditedInvoiceId: null,
    bookedAt: at,
    ...fields,
  });
const fold = (events: readonly InvoiceEvent[]) => events.reduce<TrackedInvoiceState>(evolveTrackedInvoice, NO_INVOICE);

describe('evolveTrackedInvoice', () => {
  it('given nothing, when the invoice is created, then a draft with its lines’ discounts and no totals yet', () => {
    expect(fold([created()])).toEqual({
      status: 'draft',
      id: 'invoice-1',
      type: 'invoice',
      handle: null,
      date: '2026-02-01',
      dueDate: '2026-02-15',
      currency: 'EUR',
      customerId: 'customer-1',
      customer: { name: 'Acme Oy' },
      totalInclVat: 0,
      totalVat: 0,
      lineDiscounts: 500,
      settledAmount: 0,
    });
  });

  it('given a one-off customer (no customer record), then customerId is null', () => {
    expect(fold([created({ customerId: undefined })])).toMatchObject({ customerId: null });
  });

  it('given a draft, when it is updated, then its dates, currency, discounts and customer follow; without a customer the name stays', () => {
    const update = (fields: Record<string, unknown>) =>
      event('InvoiceUpdated', { invoiceId: 'invoice-1', date: '2026-03-01', currency: 'SEK', dueDate: null, lines: [line(50)], updatedAt: at, ...fields });
    expect(fold([created(), update({ customer: customer('Beta Ab') })])).toMatchObject({
      date: '2026-03-01',
      currency: 'SEK',
      dueDate: null,
      lineDiscounts: 50,
      customer: { name: 'Beta Ab' },
    });
    expect(fold([created(), update({})])).toMatchObject({ customer: { name: 'Acme Oy' } });
  });

  it('given a draft, when it is booked, then its number, dates and totals as booked; the discounts of the booked lines, else the draft’s', () => {
    expect(fold([created(), booked({ lines: [line(70)], customer: customer('Frozen Oy') })])).toMatchObject({
      status: 'booked',
      handle: 'INV-1',
      date: '2026-02-02',
      dueDate: '2026-02-16',
      totalInclVat: 1_240,
      totalVat: 240,
      lineDiscounts: 70,
      customer: { name: 'Frozen Oy' },
    });
    expect(fold([created(), booked()])).toMatchObject({ lineDiscounts: 500, customer: { name: 'Acme Oy' } });
  });

  it('given a booked invoice, when settlements are added (a refund is negative), then settledAmount is their sum', () => {
    const settled = (amount: number) =>
      event('InvoiceSettlementAdded', { invoiceId: 'invoice-1', amount, date: '2026-02-03', addedAt: at, settlementStatus: 'partly_settled' });
    expect(fold([created(), booked(), settled(1_000), settled(240), settled(-100)])).toMatchObject({ settledAmount: 1_140 });
  });

  it('given a booked invoice, when it is voided, then void with its booked figures kept', () => {
    expect(
      fold([created(), booked(), event('InvoiceVoided', { invoiceId: 'invoice-1', customerId: 'customer-1', currency: 'EUR', voidedAt: at })]),
    ).toMatchObject({
      status: 'void',
      totalInclVat: 1_240,
    });
  });

  it('given events that move none of its figures, then the same state object', () => {
    const state = fold([created(), booked()]);
    for (const other of [
      event('InvoiceMarkedUncollectible', { invoiceId: 'invoice-1', markedAt: at }),
      event('InvoiceHostedLinkRotated', { invoiceId: 'invoice-1', linkVersion: 1, rotatedAt: at }),
      event('InvoiceDuplicated', { invoiceId: 'invoice-1', newInvoiceId: 'invoice-2', reverse: false, duplicatedAt: at }),
      event('SomethingNewer' as InvoiceEvent['type'], {}),
    ]) {
      expect(evolveTrackedInvoice(state, other)).toBe(state);
    }
  });

  it('given no InvoiceCreated yet, when any other event arrives, then still nothing', () => {
    expect(fold([booked()])).toBe(NO_INVOICE);
  });
});

/**
 * The oracle: invoicing's own fold of the whole invoice, read the way migration 1764600920000 reads a stored state
 * (the totals of an invoice never booked, which has no handle, 0; the discounts of its lines summed). The two must agree after any sequence of events, so the
 * migrated rows equal what a rebuild makes, and analytics' figures equal invoicing's.
 */
function asTracked(state: InvoiceState): TrackedInvoiceState {
  if (state.status === 'none') return state;
  const invoice = state as Invoice;
  const neverBooked = invoice.handle === null;
  return {
    status: invoice.status,
    id: invoice.id,
    type: invoice.type,
    handle: invoice.handle,
    date: invoice.date,
    dueDate: invoice.dueDate,
    currency: invoice.currency,
    customerId: invoice.customerId ?? null,
    customer: { name: invoice.customer?.name ?? null },
    totalInclVat: neverBooked ? 0 : invoice.totalInclVat,
    totalVat: neverBooked ? 0 : invoice.totalVat,
    lineDiscounts: invoice.lines.reduce((sum, one) => sum + one.discountAmount, 0),
    settledAmount: invoice.settledAmount,
  };
}

describe('evolveTrackedInvoice against invoicing’s fold', () => {
  const amount = fc.integer({ min: -100_000, max: 100_000 });
  const lines = fc.array(
    amount.map((discount) => line(discount)),
    { maxLength: 4 },
  );
  const name = fc.option(fc.constantFrom('Acme Oy', 'Beta Ab', 'Gamma GmbH'), { nil: null });
  const date = fc.constantFrom('2026-01-31', '2026-02-28', '2026-03-01');
  const update = fc.record({ lines, date, customer: fc.option(name, { nil: undefined }) }).map(({ lines, date, customer: named }) =>
    event('InvoiceUpdated', {
      invoiceId: 'invoice-1',
      date,
      currency: 'EUR',
      dueDate: null,
      lines,
      updatedAt: at,
      ...(named === undefined ? {} : { customer: customer(named) }),
    }),
  );
  const booking = fc
    .record({ lines: fc.option(lines, { nil: undefined }), total: amount, tax: amount, customer: fc.option(name, { nil: undefined }) })
    .map((booking) =>
      booked({
        totalInclVat: booking.total,
        totalVat: booking.tax,
        ...(booking.lines === undefined ? {} : { lines: booking.lines }),
        ...(booking.customer === undefined ? {} : { customer: customer(booking.customer) }),
      }),
    );
  const settlement = amount.map((settled) =>
    event('InvoiceSettlementAdded', { invoiceId: 'invoice-1', amount: settled, date: '2026-02-03', addedAt: at, settlementStatus: 'settled' }),
  );
  const aside = fc.constantFrom(
    event('InvoiceMarkedUncollectible', { invoiceId: 'invoice-1', markedAt: at }),
    event('InvoiceHostedLinkRotated', { invoiceId: 'invoice-1', linkVersion: 2, rotatedAt: at }),
  );
  const voided = event('InvoiceVoided', { invoiceId: 'invoice-1', customerId: 'customer-1', currency: 'EUR', voidedAt: at });
  /** The sequences invoicing's deciders make: updates and settlements of a draft, one booking, then settlements and marks, a void last. */
  const lifecycle = fc
    .record({
      drafts: fc.array(fc.oneof(update, settlement), { maxLength: 3 }),
      booking: fc.option(booking, { nil: undefined }),
      after: fc.array(fc.oneof(settlement, aside), { maxLength: 4 }),
      voided: fc.boolean(),
    })
    .map(({ drafts, booking, after, voided: isVoided }) => (booking ? [...drafts, booking, ...after, ...(isVoided ? [voided] : [])] : drafts));
  const first = fc
    .record({ lines, customerId: fc.option(fc.constant('customer-1'), { nil: undefined }), name, type: fc.constantFrom('invoice', 'credit_note') })
    .map(({ lines, customerId, name: named, type }) => created({ lines, customerId, customer: customer(named), type }));

  it('given any lifecycle of an invoice (its InvoiceCreated first or missing), then the same figures as invoicing’s whole state', () => {
    fc.assert(
      fc.property(fc.option(first, { nil: undefined }), lifecycle, (start, rest) => {
        const events = start ? [start, ...rest] : rest;
        const whole = events.reduce(invoiceEvolver.evolve, invoiceEvolver.initialState());
        expect(fold(events)).toEqual(asTracked(whole));
      }),
    );
  });
});
