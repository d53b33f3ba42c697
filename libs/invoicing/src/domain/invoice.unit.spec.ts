import fc from 'fast-check';
import {
  CommandMetadata,
  ConflictError,
  DomainError,
  NotFoundError,
  ValidationError,
  foldEvents,
} from '@billing/shared-kernel';
import {
  CreateInvoice,
  Invoice,
  InvoiceBooked,
  InvoiceCreated,
  InvoiceCustomer,
  InvoiceEvent,
  InvoiceLine,
  InvoiceLineInput,
  InvoiceState,
  MAX_INVOICE_LINES,
  decideAddSettlement,
  decideBookInvoice,
  decideCreateInvoice,
  decideDuplicateInvoice,
  decideUpdateInvoice,
  formatInvoiceHandle,
  invoiceEvolver,
  toInvoiceView,
} from './invoice';

// ---------------------------------------------------------------- fixtures

const NOW = '2025-03-01T10:00:00.000Z';
function metaAt(now = NOW): CommandMetadata {
  let next = 0;
  return { now: new Date(now), newId: () => `id-${++next}` };
}
const given = (...events: InvoiceEvent[]): InvoiceState => foldEvents(invoiceEvolver, events);
function invoiceOf(state: InvoiceState): Invoice {
  if (!state.exists) throw new Error('expected an invoice');
  return state;
}

function thrown(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}
function expectError(fn: () => unknown, type: new (...args: never[]) => DomainError, code: string, pointer?: string) {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(type);
  expect(error.code).toBe(code);
  if (pointer !== undefined) expect(error.errors.map((e) => e.pointer)).toEqual([pointer]);
}

const VAT25 = { taxCode: 'VAT25', taxable: true, taxRate: 0.25 };
const VAT255 = { taxCode: 'VAT255', taxable: true, taxRate: 0.255 };
const customer: InvoiceCustomer = {
  id: 'cust-1',
  handle: 'c-1',
  name: 'Acme',
  billingAddress: { street1: 'Main 1', street2: null, postalCode: '1000', city: 'Town', county: null, country: 'DK', state: null },
};
const items: InvoiceLineInput[] = [
  { quantity: 2, unitAmount: 1000, title: 'Seat', tax: VAT25 },
  { quantity: 1.5, unitAmount: 999, discount: { percentage: 23.5 }, tax: VAT255, sku: 'SKU-B', periodStart: '2025-03-01', periodEnd: '2025-03-31' },
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
  { id: 'id-3', ...noText, description: 'Setup', quantity: 1, unitAmount: 300, discount: { percentage: null, amount: 100 }, tax: NO_TAX, discountAmount: 100, amount: 200, taxAmount: 0 },
];

const createCommand: CreateInvoice = { invoiceId: 'inv-1', customer, currency: 'eur', date: '2025-02-01', dueDate: '2025-02-15', memo: 'Feb', items };
const created = decideCreateInvoice(createCommand, given(), metaAt('2025-02-01T09:00:00.000Z'))[0] as InvoiceCreated;
const booked = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: '2025-02-02' }, given(created), metaAt('2025-02-02T09:00:00.000Z'))[0] as InvoiceBooked;
const createdEmpty = decideCreateInvoice({ ...createCommand, items: [] }, given(), metaAt())[0];

// ---------------------------------------------------------------- create

describe('CreateInvoice', () => {
  it('given no invoice, when created, then InvoiceCreated with resolved taxes and computed lines', () => {
    expect(decideCreateInvoice(createCommand, given(), metaAt())).toEqual([
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

  it('defaults date to today (UTC), and dueDate, memo, items and address fields to empty', () => {
    const [event] = decideCreateInvoice(
      { invoiceId: 'inv-1', customer: { id: 'c', handle: null, name: null } as unknown as InvoiceCustomer, currency: 'USD' },
      given(),
      metaAt('2025-03-01T23:59:59.000Z'),
    );
    expect(event.data).toMatchObject({ date: '2025-03-01', dueDate: null, memo: null, lines: [], currency: 'USD' });
    expect((event as InvoiceCreated).data.customer.billingAddress).toEqual({
      street1: null,
      street2: null,
      postalCode: null,
      city: null,
      county: null,
      country: null,
      state: null,
    });
  });

  it('given no invoice, when created with exactly MAX_INVOICE_LINES (500) lines, then created', () => {
    const [event] = decideCreateInvoice({ ...createCommand, items: Array.from({ length: MAX_INVOICE_LINES }, () => ({ quantity: 1, unitAmount: 1 })) }, given(), metaAt());
    expect((event as InvoiceCreated).data.lines).toHaveLength(500);
  });

  it('given an invoice, when created again, then 409 invoice-exists', () => {
    expectError(() => decideCreateInvoice(createCommand, given(created), metaAt()), ConflictError, 'invoice-exists');
  });

  it.each<[string, Partial<CreateInvoice>, string, string?]>([
    ['an unknown currency', { currency: 'XXX' }, '/currency', 'unsupported-currency'],
    ['an invalid date', { date: '2025-02-30' }, '/date'],
    ['a dueDate before the date', { dueDate: '2025-01-31' }, '/dueDate'],
    ['a customer without id', { customer: { ...customer, id: '' } }, '/customer/id'],
    ['a customer without handle (required, nullable)', { customer: { id: 'c', name: null, billingAddress: customer.billingAddress } as unknown as InvoiceCustomer }, '/customer/handle'],
    ['a customer without name (required, nullable)', { customer: { id: 'c', handle: null, billingAddress: customer.billingAddress } as unknown as InvoiceCustomer }, '/customer/name'],
    ['a line id (nothing to refer to yet)', { items: [{ ...items[0], id: 'x' }] }, '/items/0/id'],
    ['a line quantity with 5 decimals', { items: [items[0], { ...items[1], quantity: 1.00001 }] }, '/items/1/quantity', 'too-many-decimals'],
    ['a period ending before it starts', { items: [{ ...items[0], periodStart: '2025-02-10', periodEnd: '2025-02-09' }] }, '/items/0/periodEnd'],
    ['an invalid period date', { items: [{ ...items[0], periodStart: '10/02/2025' }] }, '/items/0/periodStart'],
    ['a discount with both kinds', { items: [{ ...items[0], discount: { percentage: 1, amount: 1 } }] }, '/items/0/discount'],
    ['501 lines (at most MAX_INVOICE_LINES)', { items: Array.from({ length: MAX_INVOICE_LINES + 1 }, () => ({ quantity: 1, unitAmount: 1 })) }, '/items'],
    [
      'totals beyond the limit',
      { items: [{ quantity: 1, unitAmount: Number.MAX_SAFE_INTEGER }, { quantity: 1, unitAmount: 1 }] },
      '/items',
      'amount-out-of-range',
    ],
  ])('given no invoice, when created with %s, then 422', (_, overrides, pointer, code = 'validation-failed') => {
    expectError(() => decideCreateInvoice({ ...createCommand, ...overrides }, given(), metaAt()), ValidationError, code, pointer);
  });
});

// ---------------------------------------------------------------- update

describe('UpdateInvoice', () => {
  it('given a draft, when items are put, then lines are replaced: known ids kept, new lines get new ids', () => {
    const events = decideUpdateInvoice(
      {
        invoiceId: 'inv-1',
        date: '2025-02-03',
        currency: 'dkk',
        dueDate: '2025-02-20',
        items: [{ ...items[1], id: 'id-2' }, { quantity: 3, unitAmount: 10 }],
      },
      given(created),
      metaAt(),
    );
    expect(events).toEqual([
      {
        type: 'InvoiceUpdated',
        schemaVersion: 1,
        data: {
          invoiceId: 'inv-1',
          date: '2025-02-03',
          currency: 'DKK',
          dueDate: '2025-02-20',
          lines: [
            lines[1],
            { id: 'id-1', ...noText, quantity: 3, unitAmount: 10, discount: null, tax: NO_TAX, discountAmount: 0, amount: 30, taxAmount: 0 },
          ],
          updatedAt: NOW,
        },
      },
    ]);
  });

  it('given a draft, when currency is null and dueDate/items are omitted, then they are kept', () => {
    const [event] = decideUpdateInvoice({ invoiceId: 'inv-1', date: '2025-02-01', currency: null }, given(created), metaAt());
    expect(event.data).toMatchObject({ currency: 'EUR', dueDate: '2025-02-15', lines });
  });

  it('given a draft, when dueDate and items are null, then they are cleared', () => {
    const [event] = decideUpdateInvoice({ invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR', dueDate: null, items: null }, given(created), metaAt());
    expect(event.data).toMatchObject({ dueDate: null, lines: [] });
  });

  it('given a draft, when updated with 501 lines, then 422 at /items', () => {
    const many = Array.from({ length: MAX_INVOICE_LINES + 1 }, () => ({ quantity: 1, unitAmount: 1 }));
    expectError(() => decideUpdateInvoice({ invoiceId: 'inv-1', date: '2025-02-01', currency: null, items: many }, given(created), metaAt()), ValidationError, 'validation-failed', '/items');
  });

  it('given a booked invoice, when updated, then 409 invoice-not-draft', () => {
    expectError(
      () => decideUpdateInvoice({ invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR' }, given(created, booked), metaAt()),
      ConflictError,
      'invoice-not-draft',
    );
  });

  it('given no invoice, when updated, then 404', () => {
    expect(() => decideUpdateInvoice({ invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR' }, given(), metaAt())).toThrow(NotFoundError);
  });

  it.each<[string, object, string, string?]>([
    ['a line id not on the invoice', { items: [items[0], { ...items[0], id: 'other' }] }, '/items/1/id'],
    ['the same line id twice', { items: [{ ...items[0], id: 'id-1' }, { ...items[0], id: 'id-1' }] }, '/items/1/id'],
    ['a dueDate before the date', { dueDate: '2025-01-01' }, '/dueDate'],
    ['a date after the kept dueDate', { date: '2025-02-16' }, '/dueDate'],
    ['an unknown currency', { currency: 'eu' }, '/currency', 'unsupported-currency'],
    ['a malformed date', { date: '2025-2-1' }, '/date'],
    ['a negative discount amount', { items: [{ ...items[0], discount: { amount: -5 } }] }, '/items/0/discount/amount'],
  ])('given a draft, when put with %s, then 422', (_, overrides, pointer, code = 'validation-failed') => {
    expectError(
      () => decideUpdateInvoice({ invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR', ...overrides }, given(created), metaAt()),
      ValidationError,
      code,
      pointer,
    );
  });
});

// ---------------------------------------------------------------- book

describe('BookInvoice', () => {
  it('given a draft, when booked, then InvoiceBooked freezes handle, dates and totals', () => {
    expect(decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001' }, given(created), metaAt('2025-02-05T08:00:00.000Z'))).toEqual([
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

  it('given a draft, when booked with a date, then that date is the invoice date', () => {
    expect(booked.data.date).toBe('2025-02-02');
  });

  it('given a booked invoice, when booked again, then 409 invoice-already-booked', () => {
    expectError(() => decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000002' }, given(created, booked), metaAt()), ConflictError, 'invoice-already-booked');
  });

  it('given a draft without lines, when booked, then 409 invoice-has-no-lines', () => {
    expectError(() => decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001' }, given(createdEmpty), metaAt()), ConflictError, 'invoice-has-no-lines');
  });

  it('given a draft dated in the past and already due, when booked without a date, then it keeps its date and due date', () => {
    const [event] = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: null }, given(created), metaAt('2025-06-30T00:00:00.000Z'));
    expect(event.data).toMatchObject({ date: '2025-02-01', dueDate: '2025-02-15', bookedAt: '2025-06-30T00:00:00.000Z' });
  });

  it('given a draft without a due date, when booked with any valid date, then that date', () => {
    const undated = decideCreateInvoice({ ...createCommand, dueDate: null }, given(), metaAt())[0];
    const [event] = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: '2030-01-01' }, given(undated), metaAt());
    expect(event.data).toMatchObject({ date: '2030-01-01', dueDate: null });
  });

  it('given a draft due 2025-02-15, when booked with a later date, then 422 at /date (the field sent), naming the stored due date', () => {
    const error = thrown(() => decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: '2025-02-16' }, given(created), metaAt()));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.errors).toEqual([{ pointer: '/date', detail: expect.stringContaining('due date 2025-02-15') }]);
  });

  it('given a draft, when booked with its due date as date, then booked', () => {
    expect(decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: '2025-02-15' }, given(created), metaAt())[0].data).toMatchObject({ date: '2025-02-15' });
  });

  it('given a draft, when booked with an invalid date, then 422 at /date', () => {
    expectError(() => decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: '2025-02-30' }, given(created), metaAt()), ValidationError, 'validation-failed', '/date');
  });

  it('given no invoice, when booked, then 404', () => {
    expect(() => decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001' }, given(), metaAt())).toThrow(NotFoundError);
  });
});

// ---------------------------------------------------------------- settle

describe('AddSettlement', () => {
  it('given a booked invoice, when a settlement is added, then InvoiceSettlementAdded', () => {
    expect(decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount: 1000, reference: 'pay-1' }, given(created, booked), metaAt())).toEqual([
      {
        type: 'InvoiceSettlementAdded',
        schemaVersion: 1,
        data: { invoiceId: 'inv-1', date: '2025-02-10', amount: 1000, reference: 'pay-1', note: null, addedAt: NOW, settlementStatus: 'under_settled' },
      },
    ]);
  });

  it('moves settlementStatus and totalDue', () => {
    const settle = (state: InvoiceState, amount: number) => decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount }, state, metaAt());
    let state = given(created, booked);
    expect(toInvoiceView(invoiceOf(state))).toMatchObject({ settlementStatus: 'not_settled', totalDue: 4139 });
    state = given(created, booked, ...settle(state, 1000));
    expect(toInvoiceView(invoiceOf(state))).toMatchObject({ settlementStatus: 'under_settled', totalDue: 3139 });
    state = foldEvents({ ...invoiceEvolver, initialState: () => state }, settle(state, 3139));
    expect(toInvoiceView(invoiceOf(state))).toMatchObject({ settlementStatus: 'settled', totalDue: 0 });
    state = foldEvents({ ...invoiceEvolver, initialState: () => state }, settle(state, 1));
    expect(toInvoiceView(invoiceOf(state))).toMatchObject({ settlementStatus: 'over_settled', totalDue: -1 });
  });

  it('given a draft, when a settlement is added, then 409 invoice-not-booked', () => {
    expectError(() => decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount: 1 }, given(created), metaAt()), ConflictError, 'invoice-not-booked');
  });

  it('given no invoice, when a settlement is added, then 404', () => {
    expect(() => decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount: 1 }, given(), metaAt())).toThrow(NotFoundError);
  });

  it.each<[string, number, string, string?]>([
    ['0', 0, '2025-02-10'],
    ['a fractional amount', 1.5, '2025-02-10'],
    ['an amount beyond the limit', 2 ** 53, '2025-02-10', 'amount-out-of-range'],
    ['a settled sum beyond the limit', -Number.MAX_SAFE_INTEGER, '2025-02-10', 'amount-out-of-range'],
  ])('given a booked invoice, when the amount is %s, then 422 at /amount', (_, amount, date, code = 'validation-failed') => {
    const state = given(created, booked, ...decideAddSettlement({ invoiceId: 'inv-1', date, amount: -1 }, given(created, booked), metaAt()));
    expectError(() => decideAddSettlement({ invoiceId: 'inv-1', date, amount }, state, metaAt()), ValidationError, code, '/amount');
  });

  it('given a booked invoice, when the date is invalid, then 422 at /date', () => {
    expectError(() => decideAddSettlement({ invoiceId: 'inv-1', date: 'soon', amount: 5 }, given(created, booked), metaAt()), ValidationError, 'validation-failed', '/date');
  });
});

// ---------------------------------------------------------------- duplicate

describe('DuplicateInvoice', () => {
  const meta = () => metaAt('2025-04-10T12:00:00.000Z');

  it('given an invoice, when duplicated, then a new draft of the same type with new line ids, and InvoiceDuplicated on the source', () => {
    const result = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false }, given(created), meta());
    expect(result).toEqual({
      sourceEvents: [
        { type: 'InvoiceDuplicated', schemaVersion: 1, data: { invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false, duplicatedAt: '2025-04-10T12:00:00.000Z' } },
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
    const { sourceEvents, newStreamEvents } = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true }, given(created, booked), meta());
    expect(sourceEvents[0].data).toMatchObject({ newInvoiceId: 'cn-1', reverse: true });
    const data = (newStreamEvents[0] as InvoiceCreated).data;
    expect(data).toMatchObject({ type: 'credit_note', creditedInvoiceId: 'inv-1', duplicatedFromInvoiceId: 'inv-1', dueDate: '2025-04-23' });
    expect(data.lines).toEqual([
      { ...lines[0], unitAmount: -1000, amount: -2000, taxAmount: -500 },
      { ...lines[1], unitAmount: -999, discountAmount: -352, amount: -1147, taxAmount: -292 },
      { ...lines[2], unitAmount: -300, discount: { percentage: null, amount: -100 }, discountAmount: -100, amount: -200, taxAmount: 0 },
    ]);
  });

  it('given a draft, when reversed, then 409 invoice-not-booked', () => {
    expectError(() => decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true }, given(created), meta()), ConflictError, 'invoice-not-booked');
  });

  it('given a credit note, when reversed, then 409 credit-note-cannot-be-reversed; when duplicated, then a credit note for the same invoice', () => {
    const { newStreamEvents } = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true }, given(created, booked), meta());
    const creditNote = given(...newStreamEvents);
    expectError(() => decideDuplicateInvoice({ invoiceId: 'cn-1', newInvoiceId: 'x', reverse: true }, creditNote, meta()), ConflictError, 'credit-note-cannot-be-reversed');
    const copy = decideDuplicateInvoice({ invoiceId: 'cn-1', newInvoiceId: 'cn-2', reverse: false }, creditNote, meta()).newStreamEvents[0] as InvoiceCreated;
    expect(copy.data).toMatchObject({ type: 'credit_note', creditedInvoiceId: 'inv-1', duplicatedFromInvoiceId: 'cn-1' });
  });

  it('given no invoice, when duplicated, then 404', () => {
    expect(() => decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'x', reverse: false }, given(), meta())).toThrow(NotFoundError);
  });

  it('keeps a null dueDate null', () => {
    const noDue = decideCreateInvoice({ ...createCommand, dueDate: null }, given(), metaAt());
    const copy = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'x', reverse: false }, given(...noDue), meta()).newStreamEvents[0];
    expect((copy as InvoiceCreated).data.dueDate).toBeNull();
  });
});

// ---------------------------------------------------------------- evolve & view

describe('evolve and toInvoiceView', () => {
  it('folds the stream and renders exactly the InvoiceDetail shape', () => {
    const settlement = decideAddSettlement({ invoiceId: 'inv-1', date: '2025-02-10', amount: 139, note: 'partial' }, given(created, booked), metaAt());
    const duplicated = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false }, given(created, booked), metaAt()).sourceEvents;
    const state = invoiceOf(given(created, booked, ...settlement, ...duplicated));
    expect(state.version).toBe(4);
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
      settlements: [{ date: '2025-02-10', amount: 139, reference: null, note: 'partial' }],
      totalExclVat: 3347,
      totalVat: 792,
      totalInclVat: 4139,
      totalDue: 4000,
    });
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
    const updated = decideUpdateInvoice({ invoiceId: 'inv-1', date: '2025-02-01', currency: 'EUR', items: [{ quantity: 1, unitAmount: 50 }] }, given(created), metaAt());
    expect(invoiceOf(given(created, ...updated))).toMatchObject({ totalExclVat: 50, totalVat: 0, totalInclVat: 50, updatedAt: NOW, version: 2 });
  });

  it('ignores non-creation events on an empty stream', () => {
    expect(given(booked)).toEqual({ exists: false, version: 0 });
  });
});

describe('formatInvoiceHandle', () => {
  it('numbers invoices and credit notes with six digits at least', () => {
    expect(formatInvoiceHandle('invoice', 1)).toBe('INV-000001');
    expect(formatInvoiceHandle('credit_note', 42)).toBe('CN-000042');
    expect(formatInvoiceHandle('invoice', 1234567)).toBe('INV-1234567');
    expect(() => formatInvoiceHandle('invoice', 0)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------- properties

const lineInputArb: fc.Arbitrary<InvoiceLineInput> = fc.record({
  quantity: fc.integer({ min: 0, max: 10_000_000 }).map((q) => q / 10_000),
  unitAmount: fc.integer({ min: -1_000_000, max: 1_000_000 }),
  discount: fc.oneof(
    fc.constant(null),
    fc.integer({ min: 0, max: 10_000 }).map((p) => ({ percentage: p / 100 })),
  ),
  tax: fc.oneof(
    fc.constant(null),
    fc.record({ taxCode: fc.constant('T'), taxable: fc.boolean(), taxRate: fc.integer({ min: 0, max: 10_000 }).map((r) => r / 10_000) }),
  ),
});

describe('invoice properties', () => {
  it('a credit note negates every figure of the booked invoice exactly', () => {
    fc.assert(
      fc.property(fc.array(lineInputArb, { minLength: 1, maxLength: 6 }), (inputs) => {
        const c = decideCreateInvoice({ ...createCommand, items: inputs }, given(), metaAt());
        const b = decideBookInvoice({ invoiceId: 'inv-1', handle: 'INV-000001', date: '2025-02-01' }, given(...c), metaAt());
        const original = toInvoiceView(invoiceOf(given(...c, ...b)));
        const cn = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'cn-1', reverse: true }, given(...c, ...b), metaAt()).newStreamEvents;
        const credit = toInvoiceView(invoiceOf(given(...cn)));
        const neg = (n: number) => (n === 0 ? 0 : -n);
        expect(credit.type).toBe('credit_note');
        for (const key of ['totalExclVat', 'totalVat', 'totalInclVat', 'totalDue'] as const) expect(credit[key]).toBe(neg(original[key]));
        credit.items.forEach((item, i) => {
          const o = original.items[i];
          expect([item.unitAmount, item.amount, item.taxAmount, item.discount.amount]).toEqual([o.unitAmount, o.amount, o.taxAmount, o.discount.amount].map(neg));
          expect([item.quantity, item.tax, item.discount.percentage]).toEqual([o.quantity, o.tax, o.discount.percentage]);
        });
      }),
    );
  });

  it('a plain duplicate has the same figures as its source', () => {
    fc.assert(
      fc.property(fc.array(lineInputArb, { maxLength: 6 }), (inputs) => {
        const c = decideCreateInvoice({ ...createCommand, items: inputs }, given(), metaAt());
        const copy = decideDuplicateInvoice({ invoiceId: 'inv-1', newInvoiceId: 'inv-2', reverse: false }, given(...c), metaAt()).newStreamEvents;
        const strip = (s: InvoiceState) => {
          const { id, date, dueDate, createdAt, duplicatedFromInvoiceId, ...rest } = invoiceOf(s);
          return rest;
        };
        expect(strip(given(...copy))).toEqual(strip(given(...c)));
      }),
    );
  });
});
