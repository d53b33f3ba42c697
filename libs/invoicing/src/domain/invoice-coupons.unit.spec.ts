import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { invoiceEvolver, InvoiceState } from './invoice';
import { RequestedLine } from './invoice-commands';
import { decideCreateInvoice, decideDuplicateInvoice, decideUpdateInvoice } from './invoice-decisions';
import { InvoiceDiscount, InvoiceEvent, InvoiceLine } from './invoice-events';
import { withCoupons } from './invoice-lines';

const spec = deciderSpec(invoiceEvolver);
const meta = () => metadataAt('2026-03-01T10:00:00.000Z');
const customer = { id: '11111111-1111-4111-8111-111111111111', handle: 'C-1', name: 'Acme Oy' };
const coupon = (overrides: Partial<InvoiceDiscount> = {}): InvoiceDiscount => ({
  id: 'r1',
  couponId: 'c1',
  promotionCodeId: null,
  promotionCode: null,
  name: 'coupon',
  percentOff: null,
  amountOff: 1000,
  productIds: null,
  minimumAmount: null,
  ...overrides,
});
const lines = (...amounts: number[]): RequestedLine[] => amounts.map((unitAmount) => ({ quantity: 1, unitAmount }));
const created = (items: RequestedLine[], discounts: InvoiceDiscount[]): InvoiceEvent[] =>
  decideCreateInvoice({ invoiceId: 'inv', customer, currency: 'EUR', date: '2026-03-01', items, taxes: new Map(), discounts }, { status: 'none' }, meta());
const figures = (state: InvoiceState) => (state.status === 'none' ? [] : state.lines.map((line) => [line.discountAmount, line.couponAmount ?? 0, line.amount]));

describe('coupons on a draft invoice (the Invoice decider)', () => {
  it('given three lines of odd amounts, when created with 10.00 off, then 167, 333, 500 by largest remainder; the discounts are recorded', () => {
    const state = foldEvents(invoiceEvolver, created(lines(1001, 2003, 3007), [coupon()]));
    expect(figures(state)).toEqual([
      [167, 167, 834],
      [333, 333, 1670],
      [500, 500, 2507],
    ]);
    expect(state.status !== 'none' && state.discounts).toEqual([coupon()]);
  });

  it('given a line with its own 10 %, when a 20 % coupon applies, then it takes 20 % of what is left: 200 + 360', () => {
    const state = foldEvents(
      invoiceEvolver,
      created([{ quantity: 1, unitAmount: 2000, discount: { percentage: 10 } }], [coupon({ percentOff: 20, amountOff: null })]),
    );
    expect(figures(state)).toEqual([[560, 360, 1440]]);
  });

  it('given a draft with a coupon, when updated without discounts, then the coupon is applied once to the new lines (never twice)', () => {
    spec
      .given(created(lines(1000), [coupon({ amountOff: 100 })]))
      .when((state) => decideUpdateInvoice({ invoiceId: 'inv', date: '2026-03-01', currency: null, items: lines(3000), taxes: new Map() }, state, meta()))
      .then([
        expect.objectContaining({
          type: 'InvoiceUpdated',
          data: expect.objectContaining({ lines: [expect.objectContaining({ amount: 2900, couponAmount: 100 })] }),
        }),
      ]);
    spec
      .given(created(lines(1000), [coupon({ amountOff: 100 })]))
      .when((state) => decideUpdateInvoice({ invoiceId: 'inv', date: '2026-03-01', currency: null, taxes: new Map() }, state, meta()))
      .then([expect.objectContaining({ data: expect.objectContaining({ lines: [expect.objectContaining({ amount: 900, discountAmount: 100 })] }) })]);
  });

  it('given a draft with an amount-off coupon, when its currency changes, then 422 at /currency; when its coupons are dropped, then the lines are whole', () => {
    spec
      .given(created(lines(1000), [coupon()]))
      .when((state) => decideUpdateInvoice({ invoiceId: 'inv', date: '2026-03-01', currency: 'USD', taxes: new Map() }, state, meta()))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/currency' })] });
    spec
      .given(created(lines(1000), [coupon()]))
      .when((state) => decideUpdateInvoice({ invoiceId: 'inv', date: '2026-03-01', currency: null, taxes: new Map(), discounts: [] }, state, meta()))
      .then([
        expect.objectContaining({ data: expect.objectContaining({ discounts: [], lines: [expect.objectContaining({ amount: 1000, discountAmount: 0 })] }) }),
      ]);
  });

  it('given a draft with coupons, when copied (duplicate, reverse false), then the copy bills the lines whole: the coupons are not redeemed on it', () => {
    const draft = foldEvents(invoiceEvolver, created(lines(1001, 2003), [coupon({ amountOff: 300 })]));
    const copy = decideDuplicateInvoice({ invoiceId: 'inv', newInvoiceId: 'copy', reverse: false, taxes: new Map() }, draft, meta());
    const copied = (copy.newStreamEvents[0].data as unknown as { lines: InvoiceLine[] }).lines;
    expect(copied.map((line) => [line.amount, line.couponAmount])).toEqual([
      [1001, undefined],
      [2003, undefined],
    ]);
  });

  it('withCoupons: an appliesTo coupon only on lines whose product it names; below a minimum, none', () => {
    const built = foldEvents(invoiceEvolver, created([{ quantity: 1, unitAmount: 1500, priceId: 'p1', productId: 'seats' }, ...lines(4000)], []));
    const current = built.status === 'none' ? [] : built.lines;
    expect(withCoupons(current, [coupon({ amountOff: 100000, productIds: ['seats'] })]).map((line) => line.amount)).toEqual([0, 4000]);
    expect(withCoupons(current, [coupon({ percentOff: 50, amountOff: null, minimumAmount: 6000 })]).map((line) => line.amount)).toEqual([1500, 4000]);
  });
});
