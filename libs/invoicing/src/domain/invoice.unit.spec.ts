import fc from 'fast-check';
import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { toInvoiceView } from '../read-model/invoice-view';
import {
  CreateInvoice,
  Invoice,
  InvoiceState,
  MAX_INVOICE_LINES,
  RequestedLine,
  decideAddSettlement,
  decideBookInvoice,
  decideCreateInvoice,
  decideDuplicateInvoice,
  decideUpdateInvoice,
  formatInvoiceHandle,
  invoiceEvolver,
  taxCodesNamedBy,
  taxCodesOf,
} from '.';
import { InvoiceBooked, InvoiceCreated, InvoiceCustomer, InvoiceEvent, InvoiceLine } from './invoice-events';
import { ResolvedTax, TaxRegister } from './tax-code';

// ---------------------------------------------------------------- fixtures

const NOW = '2025-03-01T10:00:00.000Z';
const metaAt = (now: string = NOW, prefix = 'id'): CommandMetadata => metadataAt(now, prefix);
const spec = deciderSpec(invoiceEvolver);
const given = (...events: InvoiceEvent[]): InvoiceState => foldEvents(invoiceEvolver, events);
function invoiceOf(state: InvoiceState): Invoice {
  if (state.status === 'none') throw new Error('expected an invoice');
  return state;
}
const register = (...taxes: ResolvedTax[]): TaxRegister => new Map(taxes.map((tax) => [tax.taxCode!, tax]));
const NO_REGISTER: TaxRegister = new Map();
/** A 422 at one pointer. */
const invalidAt = (pointer: string, code = 'validation-failed') => ({ kind: 'validation', code, errors: [expect.objectContaining({ pointer })] });

const VAT25 = { taxCode: 'VAT25', taxable: true, taxRate: 0.25 };
const VAT255 = { taxCode: 'VAT255', taxable: true, taxRate: 0.255 };
const taxes = register(VAT25, VAT255);
const customer: InvoiceCustomer = {
  id: 'cust-1',
  handle: 'c-1',
  name: 'Acme',
  email: null,
  billingAddress: { street1: 'Main 1', street2: null, postalCode: '1000', city: 'Town', county: null, country: 'DK', state: null },
};
const items: RequestedLine[] = [
  { quantity: 2, unitAmount: 1000, title: 'Seat', taxCode: 'VAT25' },
  { quantity: 1.5, unitAmount: 999, discount: { percentage: 23.5 }, taxCode: 'VAT255', sku: 'SKU-B', periodStart: '2025-03-01', periodEnd: '2025-03-31' },
  { quantity: 1, unitAmount: 300, discount: { amount: 100 }, description: 'Setup' },
];
const noText = { sku: null, title: null, description: null, periodStart: null, periodEnd: null };
const NO_TAX = { taxCode: null, taxable: false, taxRate: 0 };
/** items above with ids id-1..3: 2000+500, 1147+292 (1499 − 352), 200+0 */
const lines: InvoiceLine[] = [
  { id: 'id-1', ...noText, title: 'Seat', quantity: 2, unitAmount: 1000, discount: null, tax: VAT25, discountAmount: 0, amount: 2000, taxAmount: 500 },
  {
    id: 'id-2',
    ...noText,
    sku: 'SKU-B',
    periodStart: '2025-03-01',
    periodEnd: '2025-03-31',
    quantity: 1.5,
    unitAmount: 999,
    discount: { percentage: 23.5, amount: null },
    tax: VAT255,
    discountAmount: 352,
    amount: 1147,
    taxAmount: 292,
  },
  {
    id: 'id-3',
    ...noText,
    description: 'Setup',
    quantity: 1,
    unitAmount: 300,
    discount: { percentage: null, amount: 100 },
    tax: NO_TAX,
    discountAmount: 100,
    amount: 200,
    taxAmount: 0,
  },
];

const createCommand: CreateInvoice = { invoiceId: 'inv-1', customer, currency: 'eur', date: '2025-02-01', dueDate: '2025-02-15', memo: 'Feb', items, taxes };
const created = decideCreateInvoice(createCommand, given(), metaAt('2025-02-01T09:00:00.000Z'))[0] as InvoiceCreated;
const booked = decideBookInvoice(
  { invoiceId: 'inv-1', handle: 'INV-000001', date: '2025-02-02', taxes },
  given(created),
  metaAt('2025-02-02T09:00:00.000Z'),
)[0] as InvoiceBooked;
const createdEmpty = decideCreateInvoice({ ...createCommand, items: [] }, given(), metaAt())[0];
const book = (overrides: { date?: string | null; handle?: string; manual?: boolean } = {}) => ({
  invoiceId: 'inv-1',
  handle: 'INV-000001',
  taxes,
  ...overrides,
});
const update = (overrides: object = {}) => ({ invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR', taxes, ...overrides });

// ---------------------------------------------------------------- create

describe('decideCreateInvoice', () => {
  it('given no invoice, when created, then InvoiceCreated with resolved taxes and computed lines', () => {
    spec
      .given([])
      .when((state) => decideCreateInvoice(createCommand, state, metaAt()))
      .then([
        {
          type: 'InvoiceCreated',
          schemaVersion: 1,
          data: {
            invoiceId: 'inv-1',
            type: 'invoice',
            customer,
            currency: 'EUR',
            date: '2025-02-01',
            dueDate: '2025-02-15',
            memo: 'Feb',
            lines,
            creditedInvoiceId: null,
            duplicatedFromInvoiceId: null,
            createdAt: NOW,
          },
        },
      ]);
  });

  it('given no invoice, when created with only customer and currency, then date today (UTC) and dueDate, memo, items and address fields empty', () => {
    spec
      .given([])
      .when((state) =>
        decideCreateInvoice(
          { invoiceId: 'inv-1', customer: { id: 'c', handle: null, name: null }, currency: 'USD', taxes: NO_REGISTER },
          state,
          metaAt('2025-03-01T23:59:59.000Z'),
        ),
      )
      .then([
        {
          type: 'InvoiceCreated',
          schemaVersion: 1,
          data: {
            invoiceId: 'inv-1',
            type: 'invoice',
            customer: {
              id: 'c',
              handle: null,
              name: null,
              email: null,
              billingAddress: { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null },
            },
            currency: 'USD',
            date: '2025-03-01',
            dueDate: null,
            memo: null,
            lines: [],
            creditedInvoiceId: null,
            duplicatedFromInvoiceId: null,
            createdAt: '2025-03-01T23:59:59.000Z',
          },
        },
      ]);
  });

  it('given no invoice, when created with exactly MAX_INVOICE_LINES (500) lines, then created', () => {
    spec
      .given([])
      .when(
        (state) =>
          (
            decideCreateInvoice(
              { ...createCommand, items: Array.from({ length: MAX_INVOICE_LINES }, () => ({ quantity: 1, unitAmount: 1 })) },
              state,
              metaAt(),
            )[0] as InvoiceCreated
          ).data.lines.length,
      )
      .then(500);
  });

  it('given an invoice, when created again, then 409 invoice-exists', () => {
    spec
      .given([created])
      .when((state) => decideCreateInvoice(createCommand, state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-exists' });
  });

  it('given no invoice, when lines name codes the register lacks, then 422 unknown-tax-code at each of them', () => {
    const named = [{ quantity: 1, unitAmount: 1, taxCode: 'NOPE' }, items[0], { quantity: 1, unitAmount: 1, taxCode: 'vat25' }];
    spec
      .given([])
      .when((state) => decideCreateInvoice({ ...createCommand, items: named }, state, metaAt()))
      .thenThrows({
        kind: 'validation',
        code: 'unknown-tax-code',
        errors: [expect.objectContaining({ pointer: '/items/0/taxCode' }), expect.objectContaining({ pointer: '/items/2/taxCode' })],
      });
  });

  it('given no invoice, when created for an inline customer with an e-mail, then the snapshot keeps it (mail about the invoice goes there)', () => {
    const [created] = decideCreateInvoice({ ...createCommand, customer: { ...customer, email: 'billing@acme.example' } }, { status: 'none' }, metaAt());
    expect(created.data).toMatchObject({ customer: { ...customer, email: 'billing@acme.example' } });
  });

  it('given no invoice, when the customer lacks handle and name, then 422 at both', () => {
    spec
      .given([])
      .when((state) => decideCreateInvoice({ ...createCommand, customer: { id: 'c' } as InvoiceCustomer }, state, metaAt()))
      .thenThrows({
        kind: 'validation',
        errors: [expect.objectContaining({ pointer: '/customer/handle' }), expect.objectContaining({ pointer: '/customer/name' })],
      });
  });

  it.each<[string, Partial<CreateInvoice>, string, string?]>([
    ['an unknown currency', { currency: 'XXX' }, '/currency', 'unsupported-currency'],
    ['an invalid date', { date: '2025-02-30' }, '/date'],
    ['a malformed due date', { dueDate: '15.02.2025' }, '/dueDate'],
    ['a dueDate before the date', { dueDate: '2025-01-31' }, '/dueDate'],
    ['a customer without id', { customer: { ...customer, id: '' } }, '/customer/id'],
    ['a customer with an e-mail that is not one', { customer: { ...customer, email: 'billing@' } }, '/customer/email'],
    [
      'a customer without handle (required, nullable)',
      { customer: { id: 'c', name: null, billingAddress: customer.billingAddress } as unknown as InvoiceCustomer },
      '/customer/handle',
    ],
    [
      'a customer without name (required, nullable)',
      { customer: { id: 'c', handle: null, billingAddress: customer.billingAddress } as unknown as InvoiceCustomer },
      '/customer/name',
    ],
    ['a line id (nothing to refer to yet)', { items: [{ ...items[0], id: 'x' }] }, '/items/0/id'],
    ['a line quantity with 5 decimals', { items: [items[0], { ...items[1], quantity: 1.00001 }] }, '/items/1/quantity', 'too-many-decimals'],
    ['a period ending before it starts', { items: [{ ...items[0], periodStart: '2025-02-10', periodEnd: '2025-02-09' }] }, '/items/0/periodEnd'],
    ['an invalid period start', { items: [{ ...items[0], periodStart: '10/02/2025' }] }, '/items/0/periodStart'],
    ['an invalid period end', { items: [{ ...items[0], periodEnd: '2025-02-31' }] }, '/items/0/periodEnd'],
    ['a discount with both kinds', { items: [{ ...items[0], discount: { percentage: 1, amount: 1 } }] }, '/items/0/discount'],
    ['501 lines (at most MAX_INVOICE_LINES)', { items: Array.from({ length: MAX_INVOICE_LINES + 1 }, () => ({ quantity: 1, unitAmount: 1 })) }, '/items'],
    [
      'totals beyond the limit',
      {
        items: [
          { quantity: 1, unitAmount: Number.MAX_SAFE_INTEGER },
          { quantity: 1, unitAmount: 1 },
        ],
      },
      '/items',
      'amount-out-of-range',
    ],
  ])('given no invoice, when created with %s, then 422', (_, overrides, pointer, code = 'validation-failed') => {
    spec
      .given([])
      .when((state) => decideCreateInvoice({ ...createCommand, ...overrides }, state, metaAt()))
      .thenThrows(invalidAt(pointer, code));
  });
});

// ---------------------------------------------------------------- update

describe('decideUpdateInvoice', () => {
  it('given a draft, when items are put, then lines are replaced: known ids kept, new lines get new ids', () => {
    spec
      .given([created])
      .when((state) =>
        decideUpdateInvoice(
          update({
            date: '2025-02-03',
            currency: 'dkk',
            dueDate: '2025-02-20',
            items: [
              { ...items[1], id: 'id-2' },
              { quantity: 3, unitAmount: 10 },
            ],
          }),
          state,
          metaAt(),
        ),
      )
      .then([
        {
          type: 'InvoiceUpdated',
          schemaVersion: 1,
          data: {
            invoiceId: 'inv-1',
            date: '2025-02-03',
            currency: 'DKK',
            dueDate: '2025-02-20',
            lines: [lines[1], { id: 'id-1', ...noText, quantity: 3, unitAmount: 10, discount: null, tax: NO_TAX, discountAmount: 0, amount: 30, taxAmount: 0 }],
            updatedAt: NOW,
          },
        },
      ]);
  });

  it('given a draft, when currency is null and dueDate/items are omitted, then they are kept', () => {
    spec
      .given([created])
      .when((state) => decideUpdateInvoice(update({ currency: null }), state, metaAt()))
      .then([
        {
          type: 'InvoiceUpdated',
          schemaVersion: 1,
          data: { invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR', dueDate: '2025-02-15', lines, updatedAt: NOW },
        },
      ]);
  });

  it('given a draft, when dueDate and items are null, then they are cleared', () => {
    spec
      .given([created])
      .when((state) => decideUpdateInvoice(update({ dueDate: null, items: null }), state, metaAt()))
      .then([
        {
          type: 'InvoiceUpdated',
          schemaVersion: 1,
          data: { invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR', dueDate: null, lines: [], updatedAt: NOW },
        },
      ]);
  });

  it('given no invoice, when updated, then 404', () => {
    spec
      .given([])
      .when((state) => decideUpdateInvoice(update(), state, metaAt()))
      .thenThrows({ kind: 'not_found', code: 'not-found' });
  });

  it('given a booked invoice, when updated (even naming an unknown code), then 409 invoice-not-draft', () => {
    spec
      .given([created, booked])
      .when((state) => decideUpdateInvoice(update(), state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-draft' });
    spec
      .given([created, booked])
      .when((state) => decideUpdateInvoice(update({ items: [{ quantity: 1, unitAmount: 1, taxCode: 'NOPE' }] }), state, metaAt()))
      .thenThrows({ code: 'invoice-not-draft' });
  });

  it.each<[string, object, string, string?]>([
    ['a line naming an unknown code', { items: [items[0], { quantity: 1, unitAmount: 1, taxCode: 'NOPE' }] }, '/items/1/taxCode', 'unknown-tax-code'],
    ['501 lines', { items: Array.from({ length: MAX_INVOICE_LINES + 1 }, () => ({ quantity: 1, unitAmount: 1 })) }, '/items'],
    ['a line id not on the invoice', { items: [items[0], { ...items[0], id: 'other' }] }, '/items/1/id'],
    [
      'the same line id twice',
      {
        items: [
          { ...items[0], id: 'id-1' },
          { ...items[0], id: 'id-1' },
        ],
      },
      '/items/1/id',
    ],
    ['a dueDate before the date', { dueDate: '2025-01-01' }, '/dueDate'],
    ['a date after the kept dueDate', { date: '2025-02-16' }, '/dueDate'],
    ['an unknown currency', { currency: 'eu' }, '/currency', 'unsupported-currency'],
    ['a malformed date', { date: '2025-2-1' }, '/date'],
    ['a negative discount amount', { items: [{ ...items[0], discount: { amount: -5 } }] }, '/items/0/discount/amount'],
  ])('given a draft, when put with %s, then 422', (_, overrides, pointer, code = 'validation-failed') => {
    spec
      .given([created])
      .when((state) => decideUpdateInvoice(update(overrides), state, metaAt()))
      .thenThrows(invalidAt(pointer, code));
  });
});

// ---------------------------------------------------------------- book

describe('decideBookInvoice', () => {
  it('given a draft, when booked, then InvoiceBooked freezes handle, dates, lines and totals', () => {
    spec
      .given([created])
      .when((state) => decideBookInvoice(book(), state, metaAt('2025-02-05T08:00:00.000Z')))
      .then([
        {
          type: 'InvoiceBooked',
          schemaVersion: 1,
          data: {
            invoiceId: 'inv-1',
            type: 'invoice',
            handle: 'INV-000001',
            date: '2025-02-01',
            dueDate: '2025-02-15',
            lines,
            totalExclVat: 3347,
            totalVat: 792,
            totalInclVat: 4139,
            creditedInvoiceId: null,
            bookedAt: '2025-02-05T08:00:00.000Z',
          },
        },
      ]);
  });

  it('given a draft, when booked with a date up to its due date, then that date is the invoice date', () => {
    spec
      .given([created])
      .when((state) => decideBookInvoice(book({ date: '2025-02-02' }), state, metaAt())[0].data)
      .then(expect.objectContaining({ date: '2025-02-02' }));
    spec
      .given([created])
      .when((state) => decideBookInvoice(book({ date: '2025-02-15' }), state, metaAt())[0].data)
      .then(expect.objectContaining({ date: '2025-02-15' }));
  });

  it('given a draft dated in the past and already due, when booked without a date, then it keeps its date and due date', () => {
    spec
      .given([created])
      .when((state) => decideBookInvoice(book({ date: null }), state, metaAt('2025-06-30T00:00:00.000Z'))[0].data)
      .then(expect.objectContaining({ date: '2025-02-01', dueDate: '2025-02-15', bookedAt: '2025-06-30T00:00:00.000Z' }));
  });

  it('given a draft without a due date, when booked with any valid date, then that date', () => {
    const undated = decideCreateInvoice({ ...createCommand, dueDate: null }, given(), metaAt());
    spec
      .given(undated)
      .when((state) => decideBookInvoice(book({ date: '2030-01-01' }), state, metaAt())[0].data)
      .then(expect.objectContaining({ date: '2030-01-01', dueDate: null }));
  });

  it('given no invoice, when booked, then 404', () => {
    spec
      .given([])
      .when((state) => decideBookInvoice(book(), state, metaAt()))
      .thenThrows({ kind: 'not_found', code: 'not-found' });
  });

  it('given a booked invoice, when booked again, then 409 invoice-already-booked', () => {
    spec
      .given([created, booked])
      .when((state) => decideBookInvoice(book({ handle: 'INV-000002' }), state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-already-booked' });
  });

  it('given a draft without lines, when booked, then 409 invoice-has-no-lines', () => {
    spec
      .given([createdEmpty])
      .when((state) => decideBookInvoice(book(), state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-has-no-lines' });
  });

  describe('a draft whose lines add up to a negative total', () => {
    const [createdNegative] = decideCreateInvoice(
      {
        ...createCommand,
        items: [
          { quantity: 1, unitAmount: 1000 },
          { title: 'Goodwill', quantity: 1, unitAmount: -1500 },
        ],
      },
      { status: 'none' },
      metaAt(),
    );
    it('when a client books it, then 409 invoice-total-negative at /items (a credit note owes the customer, not an invoice)', () => {
      spec
        .given([createdNegative])
        .when((state) => decideBookInvoice(book({ manual: true }), state, metaAt()))
        .thenThrows({ kind: 'conflict', code: 'invoice-total-negative', errors: [expect.objectContaining({ pointer: '/items' })] });
    });
    it('when the billing engine books it (a subscription invoice whose total moves to the credit balance), then it is booked', () => {
      spec
        .given([createdNegative])
        .when((state) => decideBookInvoice(book(), state, metaAt())[0].data)
        .then(expect.objectContaining({ handle: 'INV-000001', totalInclVat: -500 }));
    });
  });

  it('given a draft due 2025-02-15, when booked with a later date, then 422 at /date (the field sent), naming the stored due date', () => {
    spec
      .given([created])
      .when((state) => decideBookInvoice(book({ date: '2025-02-16' }), state, metaAt()))
      .thenThrows({ kind: 'validation', errors: [{ pointer: '/date', detail: expect.stringContaining('due date 2025-02-15') }] });
  });

  it('given a draft, when booked with an invalid date, then 422 at /date', () => {
    spec
      .given([created])
      .when((state) => decideBookInvoice(book({ date: '2025-02-30' }), state, metaAt()))
      .thenThrows(invalidAt('/date'));
  });

  it('given a draft, when booked without an allocated handle, then a programming error (never an event without a number)', () => {
    spec
      .given([created])
      .when((state) => decideBookInvoice(book({ handle: '' }), state, metaAt()))
      .thenThrows({ message: 'BookInvoice needs an allocated handle' });
  });
});

// ---------------------------------------------------------------- settle

describe('decideAddSettlement', () => {
  const settle = (amount: number, date = '2025-02-10') => ({ invoiceId: 'inv-1', date, amount });

  it('given a booked invoice, when a settlement is added, then InvoiceSettlementAdded with the settlement status after it', () => {
    spec
      .given([created, booked])
      .when((state) => decideAddSettlement({ ...settle(1000), reference: 'pay-1' }, state, metaAt()))
      .then([
        {
          type: 'InvoiceSettlementAdded',
          schemaVersion: 1,
          data: { invoiceId: 'inv-1', date: '2025-02-10', amount: 1000, reference: 'pay-1', note: null, addedAt: NOW, settlementStatus: 'under_settled' },
        },
      ]);
  });

  it.each<[string, number[], number, string]>([
    ['settled exactly', [], 4139, 'settled'],
    ['over-settled', [4139], 1, 'over_settled'],
    ['settled again by a refund', [4139, 1], -1, 'settled'],
  ])('given a booked invoice, when a settlement leaves it %s, then the event says so', (_, before, amount, status) => {
    const history = before.reduce<InvoiceEvent[]>(
      (events, paid) => [...events, ...decideAddSettlement(settle(paid), given(...events), metaAt())],
      [created, booked],
    );
    spec
      .given(history)
      .when((state) => decideAddSettlement(settle(amount), state, metaAt())[0].data)
      .then(expect.objectContaining({ settlementStatus: status }));
  });

  it('given no invoice, when a settlement is added, then 404', () => {
    spec
      .given([])
      .when((state) => decideAddSettlement(settle(1), state, metaAt()))
      .thenThrows({ kind: 'not_found', code: 'not-found' });
  });

  it('given a draft, when a settlement is added, then 409 invoice-not-booked', () => {
    spec
      .given([created])
      .when((state) => decideAddSettlement(settle(1), state, metaAt()))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
  });

  it.each<[string, number, string?]>([
    ['0', 0],
    ['a fractional amount', 1.5],
    ['an amount beyond the limit', 2 ** 53, 'amount-out-of-range'],
    ['a settled sum beyond the limit', -Number.MAX_SAFE_INTEGER, 'amount-out-of-range'],
  ])('given a booked invoice with a refund of 1, when the amount is %s, then 422 at /amount', (_, amount, code = 'validation-failed') => {
    const refunded = [created, booked, ...decideAddSettlement(settle(-1), given(created, booked), metaAt())];
    spec
      .given(refunded)
      .when((state) => decideAddSettlement(settle(amount), state, metaAt()))
      .thenThrows(invalidAt('/amount', code));
  });

  it('given a booked invoice, when a refund makes what is due exceed the limit, then 422 amount-out-of-range at /amount', () => {
    spec
      .given([created, booked])
      .when((state) => decideAddSettlement(settle(-Number.MAX_SAFE_INTEGER), state, metaAt()))
      .thenThrows(invalidAt('/amount', 'amount-out-of-range'));
  });

  it('given a booked invoice, when the date is invalid, then 422 at /date', () => {
    spec
      .given([created, booked])
      .when((state) => decideAddSettlement(settle(5, 'soon'), state, metaAt()))
      .thenThrows(invalidAt('/date'));
  });
});

// ---------------------------------------------------------------- duplicate

describe('decideDuplicateInvoice', () => {
  const meta = () => metaAt('2025-04-10T12:00:00.000Z');
  const duplicate = (overrides: { invoiceId?: string; newInvoiceId?: string; reverse?: boolean } = {}) => ({
    invoiceId: 'inv-1',
    newInvoiceId: 'inv-2',
    reverse: false,
    taxes,
    ...overrides,
  });

  it('given an invoice, when duplicated, then a new draft of the same type with new line ids, and InvoiceDuplicated on the source', () => {
    spec
      .given([created])
      .when((state) => decideDuplicateInvoice(duplicate(), state, meta()))
      .then({
        sourceEvents: [
          {
            type: 'InvoiceDuplicated',
            schemaVersion: 1,
            data: { invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false, duplicatedAt: '2025-04-10T12:00:00.000Z' },
          },
        ],
        newStreamEvents: [
          {
            type: 'InvoiceCreated',
            schemaVersion: 1,
            data: {
              invoiceId: 'inv-2',
              type: 'invoice',
              customer,
              currency: 'EUR',
              date: '2025-04-10',
              dueDate: '2025-04-24', // the source's 14-day term
              memo: 'Feb',
              lines, // fresh ids id-1..3 from this command's meta
              creditedInvoiceId: null,
              duplicatedFromInvoiceId: 'inv-1',
              createdAt: '2025-04-10T12:00:00.000Z',
            },
          },
        ],
      });
  });

  it('given a booked invoice, when reversed, then a draft credit note negating every figure, linked to the invoice', () => {
    spec
      .given([created, booked])
      .when((state) => decideDuplicateInvoice(duplicate({ newInvoiceId: 'cn-1', reverse: true }), state, meta()))
      .then({
        sourceEvents: [
          {
            type: 'InvoiceDuplicated',
            schemaVersion: 1,
            data: { invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true, duplicatedAt: '2025-04-10T12:00:00.000Z' },
          },
        ],
        newStreamEvents: [
          {
            type: 'InvoiceCreated',
            schemaVersion: 1,
            data: expect.objectContaining({
              type: 'credit_note',
              creditedInvoiceId: 'inv-1',
              duplicatedFromInvoiceId: 'inv-1',
              dueDate: '2025-04-23',
              lines: [
                { ...lines[0], unitAmount: -1000, amount: -2000, taxAmount: -500 },
                { ...lines[1], unitAmount: -999, discountAmount: -352, amount: -1147, taxAmount: -292 },
                { ...lines[2], unitAmount: -300, discount: { percentage: null, amount: -100 }, discountAmount: -100, amount: -200, taxAmount: 0 },
              ],
            }),
          },
        ],
      });
  });

  it('given a credit note, when duplicated, then a credit note for the same invoice', () => {
    const creditNote = decideDuplicateInvoice(duplicate({ newInvoiceId: 'cn-1', reverse: true }), given(created, booked), meta()).newStreamEvents;
    spec
      .given(creditNote)
      .when((state) => decideDuplicateInvoice(duplicate({ invoiceId: 'cn-1', newInvoiceId: 'cn-2' }), state, meta()).newStreamEvents[0].data)
      .then(expect.objectContaining({ type: 'credit_note', creditedInvoiceId: 'inv-1', duplicatedFromInvoiceId: 'cn-1' }));
  });

  it('given an invoice without a due date, when duplicated, then the copy has none either', () => {
    const noDue = decideCreateInvoice({ ...createCommand, dueDate: null }, given(), metaAt());
    spec
      .given(noDue)
      .when((state) => decideDuplicateInvoice(duplicate(), state, meta()).newStreamEvents[0].data)
      .then(expect.objectContaining({ dueDate: null }));
  });

  it('given no invoice, when duplicated, then 404', () => {
    spec
      .given([])
      .when((state) => decideDuplicateInvoice(duplicate(), state, meta()))
      .thenThrows({ kind: 'not_found', code: 'not-found' });
  });

  it('given a draft, when reversed, then 409 invoice-not-booked', () => {
    spec
      .given([created])
      .when((state) => decideDuplicateInvoice(duplicate({ reverse: true }), state, meta()))
      .thenThrows({ kind: 'conflict', code: 'invoice-not-booked' });
  });

  it('given a credit note, when reversed, then 409 credit-note-cannot-be-reversed', () => {
    const creditNote = decideDuplicateInvoice(duplicate({ newInvoiceId: 'cn-1', reverse: true }), given(created, booked), meta()).newStreamEvents;
    spec
      .given(creditNote)
      .when((state) => decideDuplicateInvoice(duplicate({ invoiceId: 'cn-1', reverse: true }), state, meta()))
      .thenThrows({ kind: 'conflict', code: 'credit-note-cannot-be-reversed' });
  });
});

// ---------------------------------------------------------------- evolve & view

describe('evolve and toInvoiceView', () => {
  it('starts with no invoice, and ignores anything but a creation on it', () => {
    expect(given()).toEqual({ status: 'none' });
    expect(given(booked)).toEqual({ status: 'none' });
  });

  it('ignores event types it does not know', () => {
    const state = given(created);
    expect(invoiceEvolver.evolve(state, { type: 'InvoiceArchived', schemaVersion: 1, data: {} } as unknown as InvoiceEvent)).toBe(state);
  });

  it('folds the stream and renders exactly the InvoiceDetail shape', () => {
    const settlement = decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount: 139, note: 'partial' }, given(created, booked), metaAt());
    const duplicated = decideDuplicateInvoice(
      { invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false, taxes },
      given(created, booked),
      metaAt(),
    ).sourceEvents;
    const state = invoiceOf(given(created, booked, ...settlement, ...duplicated));
    expect(toInvoiceView(state)).toEqual({
      id: 'inv-1',
      handle: 'INV-000001',
      memo: 'Feb',
      status: 'booked',
      type: 'invoice',
      settlementStatus: 'under_settled',
      date: '2025-02-02',
      dueDate: '2025-02-15',
      currency: 'EUR',
      createdAt: '2025-02-01T09:00:00.000Z',
      updatedAt: NOW,
      customer,
      items: [
        { id: 'id-1', ...noText, title: 'Seat', quantity: 2, unitAmount: 1000, amount: 2000, taxAmount: 500, tax: VAT25, discount: { amount: 0 } },
        {
          id: 'id-2',
          ...noText,
          sku: 'SKU-B',
          periodStart: '2025-03-01',
          periodEnd: '2025-03-31',
          quantity: 1.5,
          unitAmount: 999,
          amount: 1147,
          taxAmount: 292,
          tax: VAT255,
          discount: { percentage: 23.5, amount: 352 },
        },
        { id: 'id-3', ...noText, description: 'Setup', quantity: 1, unitAmount: 300, amount: 200, taxAmount: 0, tax: NO_TAX, discount: { amount: 100 } },
      ],
      discounts: [],
      settlements: [{ date: '2025-02-10', amount: 139, reference: null, note: 'partial' }],
      totalExclVat: 3347,
      totalVat: 792,
      totalInclVat: 4139,
      totalDue: 4000,
      uncollectible: false,
      creditedAmount: 0,
      creditNote: null,
      creditApplied: 0,
    });
  });

  it('settlements move settlementStatus and totalDue', () => {
    const settleAll = (events: InvoiceEvent[], ...amounts: number[]) =>
      amounts.reduce(
        (history, amount) => [...history, ...decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount }, given(...history), metaAt())],
        events,
      );
    const viewAfter = (...amounts: number[]) => toInvoiceView(invoiceOf(given(...settleAll([created, booked], ...amounts))));
    expect(viewAfter()).toMatchObject({ settlementStatus: 'not_settled', totalDue: 4139 });
    expect(viewAfter(1000)).toMatchObject({ settlementStatus: 'under_settled', totalDue: 3139 });
    expect(viewAfter(1000, 3139)).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
    expect(viewAfter(1000, 3139, 1)).toMatchObject({ settlementStatus: 'over_settled', totalDue: -1 });
  });

  it('a draft has no handle, no updatedAt, and an empty one is settled at 0', () => {
    expect(toInvoiceView(invoiceOf(given(createdEmpty)))).toMatchObject({
      handle: null,
      status: 'draft',
      updatedAt: null,
      items: [],
      settlements: [],
      settlementStatus: 'settled',
      totalInclVat: 0,
      totalDue: 0,
    });
  });

  it('an update refreshes lines, totals and updatedAt', () => {
    const updated = decideUpdateInvoice(update({ items: [{ quantity: 1, unitAmount: 50 }] }), given(created), metaAt());
    expect(invoiceOf(given(created, ...updated))).toMatchObject({ totalExclVat: 50, totalVat: 0, totalInclVat: 50, updatedAt: NOW });
  });
});

describe('taxCodesOf, taxCodesNamedBy and formatInvoiceHandle', () => {
  it('name each code once', () => {
    expect(taxCodesOf(invoiceOf(given(created)))).toEqual(['VAT25', 'VAT255']);
    expect(taxCodesNamedBy([...items, items[0], { quantity: 1, unitAmount: 1, taxCode: null }])).toEqual(['VAT25', 'VAT255']);
    expect(taxCodesNamedBy(undefined)).toEqual([]);
  });

  it('numbers invoices and credit notes with six digits at least', () => {
    expect(formatInvoiceHandle('invoice', 1)).toBe('INV-000001');
    expect(formatInvoiceHandle('credit_note', 42)).toBe('CN-000042');
    expect(formatInvoiceHandle('invoice', 1234567)).toBe('INV-1234567');
    expect(() => formatInvoiceHandle('invoice', 0)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------- properties

/** Lines naming codes T0..T2 of a register drawn with them, or none. */
const invoiceInputArb = fc.record({
  rates: fc.array(fc.record({ taxable: fc.boolean(), taxRate: fc.integer({ min: 0, max: 10_000 }).map((r) => r / 10_000) }), { minLength: 3, maxLength: 3 }),
  lines: fc.array(
    fc.record({
      quantity: fc.integer({ min: 0, max: 10_000_000 }).map((q) => q / 10_000),
      unitAmount: fc.integer({ min: -1_000_000, max: 1_000_000 }),
      discount: fc.oneof(
        fc.constant(null),
        fc.integer({ min: 0, max: 10_000 }).map((p) => ({ percentage: p / 100 })),
      ),
      taxCode: fc.oneof(fc.constant(null), fc.constantFrom('T0', 'T1', 'T2')),
    }),
    { maxLength: 6 },
  ),
});
type InvoiceInput = typeof invoiceInputArb extends fc.Arbitrary<infer T> ? T : never;
const withRegister = ({ rates, lines: requested }: InvoiceInput): CreateInvoice => ({
  ...createCommand,
  items: requested,
  taxes: register(...rates.map((rate, i) => ({ taxCode: `T${i}`, ...rate }))),
});

describe('invoice properties', () => {
  it('a credit note negates every figure of the booked invoice exactly', () => {
    fc.assert(
      fc.property(
        invoiceInputArb.filter((input) => input.lines.length > 0),
        (input) => {
          const command = withRegister(input);
          const c = decideCreateInvoice(command, given(), metaAt());
          const b = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: '2025-02-01', taxes: command.taxes }, given(...c), metaAt());
          const original = toInvoiceView(invoiceOf(given(...c, ...b)));
          const cn = decideDuplicateInvoice(
            { invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true, taxes: command.taxes },
            given(...c, ...b),
            metaAt(),
          ).newStreamEvents;
          const credit = toInvoiceView(invoiceOf(given(...cn)));
          const neg = (n: number) => (n === 0 ? 0 : -n);
          expect(credit.type).toBe('credit_note');
          for (const key of ['totalExclVat', 'totalVat', 'totalInclVat', 'totalDue'] as const) expect(credit[key]).toBe(neg(original[key]));
          credit.items.forEach((item, i) => {
            const o = original.items[i];
            expect([item.unitAmount, item.amount, item.taxAmount, item.discount.amount]).toEqual(
              [o.unitAmount, o.amount, o.taxAmount, o.discount.amount].map(neg),
            );
            expect([item.quantity, item.tax, item.discount.percentage]).toEqual([o.quantity, o.tax, o.discount.percentage]);
          });
        },
      ),
    );
  });

  it('a plain duplicate at unchanged rates has the same figures as its source', () => {
    fc.assert(
      fc.property(invoiceInputArb, (input) => {
        const command = withRegister(input);
        const c = decideCreateInvoice(command, given(), metaAt());
        const copy = decideDuplicateInvoice(
          { invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false, taxes: command.taxes },
          given(...c),
          metaAt(),
        ).newStreamEvents;
        const strip = (s: InvoiceState) => {
          const { id, date, dueDate, createdAt, duplicatedFromInvoiceId, ...rest } = invoiceOf(s);
          return rest;
        };
        expect(strip(given(...copy))).toEqual(strip(given(...c)));
      }),
    );
  });
});
