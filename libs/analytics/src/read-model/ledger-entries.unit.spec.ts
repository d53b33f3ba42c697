import { PaymentEvent, PaymentState } from '@billing/payments';
import { SubscriptionEvent, SubscriptionState } from '@billing/subscriptions';
import { invoiceEntry, paymentEntry, usageEntry } from './ledger-entries';
import { TrackedInvoiceState } from './tracked-invoice';

const invoice = (fields: Record<string, unknown> = {}) =>
  ({
    status: 'booked',
    id: 'invoice-1',
    type: 'invoice',
    currency: 'eur',
    date: '2026-02-01',
    totalInclVat: 12_400,
    totalVat: 2_400,
    settledAmount: 0,
    lineDiscounts: 500,
    ...fields,
  }) as unknown as TrackedInvoiceState;
const NONE: TrackedInvoiceState = { status: 'none' };
const event = <E>(type: string, data: Record<string, unknown> = {}) => ({ type, data }) as unknown as E;
const ZERO = { invoiced: 0, tax: 0, discounts: 0, creditNotes: 0, collected: 0, receivable: 0, usage: 0 };

describe('invoiceEntry', () => {
  it('given a booked invoice, then its totals and discounts on its date, and its total less settlements due', () => {
    const booked = invoice({ settledAmount: 400 });
    expect(invoiceEntry(event('InvoiceBooked'), invoice({ status: 'draft' }), booked)).toEqual({
      ...ZERO,
      invoiceId: 'invoice-1',
      currency: 'EUR',
      day: '2026-02-01',
      invoiced: 12_400,
      tax: 2_400,
      discounts: 500,
      receivable: 12_000,
    });
  });

  it('given a booked credit note, then its negative totals also in creditNotes, its discounts negative, nothing receivable', () => {
    const note = invoice({ type: 'credit_note', totalInclVat: -4_000, totalVat: -500, lineDiscounts: -100 });
    expect(invoiceEntry(event('InvoiceBooked'), NONE, note)).toMatchObject({
      invoiced: -4_000,
      tax: -500,
      discounts: -100,
      creditNotes: -4_000,
      receivable: 0,
    });
  });

  it('given a booked invoice voided, then it is taken back out on its date with what was still due', () => {
    const before = invoice({ settledAmount: 2_400 });
    expect(invoiceEntry(event('InvoiceVoided'), before, invoice({ status: 'void' }))).toMatchObject({
      day: '2026-02-01',
      invoiced: -12_400,
      tax: -2_400,
      discounts: -500,
      creditNotes: 0,
      receivable: -10_000,
    });
  });

  it('given a voided credit note, then its negative figures come back, creditNotes included', () => {
    const note = invoice({ type: 'credit_note', totalInclVat: -4_000, totalVat: -500, lineDiscounts: 0 });
    expect(invoiceEntry(event('InvoiceVoided'), note, { ...note, status: 'void' } as TrackedInvoiceState)).toMatchObject({
      invoiced: 4_000,
      creditNotes: 4_000,
      receivable: 0,
    });
  });

  it('given a void of an invoice that was not booked, then nothing', () => {
    expect(invoiceEntry(event('InvoiceVoided'), invoice({ status: 'draft' }), invoice({ status: 'void' }))).toBeNull();
  });

  it('given a settlement of a booked invoice, then less due by its amount', () => {
    expect(invoiceEntry(event('InvoiceSettlementAdded', { amount: 1_000 }), invoice(), invoice({ settledAmount: 1_000 }))).toEqual({
      ...ZERO,
      invoiceId: 'invoice-1',
      currency: 'EUR',
      day: '2026-02-01',
      receivable: -1_000,
    });
  });

  it('given a settlement of a draft or of a credit note, then nothing (booking counts what is due then)', () => {
    expect(invoiceEntry(event('InvoiceSettlementAdded', { amount: 1_000 }), invoice({ status: 'draft' }), invoice({ status: 'draft' }))).toBeNull();
    const note = invoice({ type: 'credit_note' });
    expect(invoiceEntry(event('InvoiceSettlementAdded', { amount: 1_000 }), note, note)).toBeNull();
  });

  it('given any other event, or an invoice that does not exist, then nothing', () => {
    expect(invoiceEntry(event('InvoiceCreated'), NONE, invoice({ status: 'draft' }))).toBeNull();
    expect(invoiceEntry(event('InvoiceBooked'), NONE, NONE)).toBeNull();
  });
});

describe('paymentEntry', () => {
  const payment = { status: 'succeeded', currency: 'eur' } as unknown as PaymentState;

  it('given a succeeded payment, then collected on the UTC day it succeeded', () => {
    expect(paymentEntry(event<PaymentEvent>('PaymentSucceeded', { amount: 5_000, succeededAt: '2026-02-10T23:30:00.000Z' }), payment)).toEqual({
      ...ZERO,
      invoiceId: null,
      currency: 'EUR',
      day: '2026-02-10',
      collected: 5_000,
    });
  });

  it('given a refund, then less collected on the day it was refunded', () => {
    expect(paymentEntry(event<PaymentEvent>('PaymentRefunded', { amount: 700, refundedAt: '2026-03-05T08:00:00.000Z' }), payment)).toMatchObject({
      day: '2026-03-05',
      collected: -700,
    });
  });

  it('given any other event, or no payment, then nothing', () => {
    expect(paymentEntry(event<PaymentEvent>('PaymentFailed', { amount: 5_000 }), payment)).toBeNull();
    expect(paymentEntry(event<PaymentEvent>('PaymentSucceeded', { amount: 1 }), { status: 'none' } as unknown as PaymentState)).toBeNull();
  });
});

describe('usageEntry', () => {
  const subscription = { status: 'active', currency: 'eur', timeZone: 'Europe/Helsinki' } as unknown as SubscriptionState;
  const charge = (amount: number) => ({ itemId: 'item', period: { start: '2026-01-01', end: '2026-01-31' }, quantity: '1', amount });
  const billed = (data: Record<string, unknown>) =>
    event<SubscriptionEvent>('SubscriptionBilled', { invoiceId: 'invoice-1', billAt: '2026-01-31T22:00:00.000Z', lines: [], ...data });

  it("given usage billed on an invoice booked at once, then its rated usage and corrections on the invoice's date in the subscription's zone", () => {
    const entry = usageEntry(
      billed({ usage: [charge(300), charge(50)], corrections: [{ ...charge(120), quantityDelta: '1', amountDelta: 20 }], bookAt: null }),
      subscription,
    );
    // 22:00 UTC on January 31 is February 1 in Helsinki.
    expect(entry).toEqual({ ...ZERO, invoiceId: 'invoice-1', currency: 'EUR', day: '2026-02-01', usage: 370 });
  });

  it('given an invoice held for the grace period, then only its corrections now; its usage when booked, as re-rated', () => {
    const held = billed({ usage: [charge(300)], corrections: [{ ...charge(120), quantityDelta: '1', amountDelta: -20 }], bookAt: '2026-02-02T22:00:00.000Z' });
    expect(usageEntry(held, subscription)).toMatchObject({ usage: -20 });
    expect(usageEntry(billed({ usage: [charge(300)], bookAt: '2026-02-02T22:00:00.000Z' }), subscription)).toBeNull();
    const booked = event<SubscriptionEvent>('SubscriptionInvoiceBooked', { invoiceId: 'invoice-1', billAt: '2026-01-31T22:00:00.000Z', usage: [charge(310)] });
    expect(usageEntry(booked, subscription)).toMatchObject({ day: '2026-02-01', usage: 310 });
  });

  it('given a billing without usage (older events have no usage member), zero usage, another event or no subscription, then nothing', () => {
    expect(usageEntry(billed({}), subscription)).toBeNull();
    expect(usageEntry(billed({ usage: [charge(0)], corrections: [], bookAt: null }), subscription)).toBeNull();
    expect(usageEntry(event<SubscriptionEvent>('SubscriptionEnded', { endedAt: '2026-02-01T00:00:00.000Z' }), subscription)).toBeNull();
    expect(usageEntry(billed({ usage: [charge(300)] }), { status: 'none' } as unknown as SubscriptionState)).toBeNull();
  });
});
