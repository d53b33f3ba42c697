import fc from 'fast-check';
import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { toInvoiceView } from '../read-model/invoice-view';
import { toCustomerView } from '../customers/read-model/customer-view';
import { Customer, CustomerCreated, CustomerEvent, customerEvolver, CustomerState, invoiceCustomerOf } from './customer';
import {
  availableCredit,
  decideAdjustCustomerBalance,
  decideApplyCustomerCredit,
  decideCreditNoteBalanceEntry,
  decideReturnCustomerCredit,
} from './customer-balance';
import { CustomerBalanceAdjusted } from './customer-balance-events';
import { decideAddSettlement, decideBookInvoice, decideCreateInvoice, decideVoidInvoice } from './invoice-decisions';
import { Invoice, invoiceEvolver } from './invoice';
import { InvoiceEvent } from './invoice-events';

const NOW = '2026-03-01T10:00:00.000Z';
const meta = metadataAt(NOW);
const spec = deciderSpec(customerEvolver);
const ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const EMPTY_ADDRESS = { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null };

const created: CustomerCreated = {
  type: 'CustomerCreated',
  schemaVersion: 1,
  data: {
    customerId: ID,
    handle: 'acme',
    name: 'Acme Oy',
    email: null,
    billingAddress: EMPTY_ADDRESS,
    taxIds: [],
    locale: 'en',
    timeZone: 'UTC',
    currency: null,
    invoiceSettings: { templateGroupId: null, footer: null, paymentTermsDays: null },
    defaultPaymentMethod: null,
    metadata: {},
    createdAt: '2026-02-01T00:00:00.000Z',
  },
};
const archived: CustomerEvent = { type: 'CustomerArchived', schemaVersion: 1, data: { customerId: ID, archivedAt: '2026-02-10T00:00:00.000Z' } };

const customerOf = (events: readonly CustomerEvent[]): Customer => foldEvents(customerEvolver, events) as Customer;
const adjust = (state: CustomerState, amount: unknown, currency: unknown = 'eur', entryId = 'entry-1', description?: unknown) =>
  decideAdjustCustomerBalance({ customerId: ID, entryId, amount, currency, description }, state, meta);
/** The customer with `credit` of EUR credit available (one adjustment). */
const withCredit = (credit: number): CustomerEvent[] => [created, ...adjust(customerOf([created]), -credit, 'EUR', 'entry-0')];

const adjusted = (data: Partial<CustomerBalanceAdjusted['data']>): CustomerBalanceAdjusted => ({
  type: 'CustomerBalanceAdjusted',
  schemaVersion: 1,
  data: {
    customerId: ID,
    entryId: 'entry-1',
    amount: -1000,
    currency: 'EUR',
    description: null,
    kind: 'adjustment',
    invoiceId: null,
    creditNoteId: null,
    balanceAfter: -1000,
    createdAt: NOW,
    ...data,
  },
});

/** A booked invoice of `total` EUR (one untaxed line) made out to the customer record (or to an inline customer), as a fold. */
function bookedInvoice(invoiceId: string, total: number, options: { customerId?: string | null; currency?: string } = {}): InvoiceEvent[] {
  const customer = customerOf([created]);
  const customerId = options.customerId === undefined ? ID : options.customerId;
  const draft = decideCreateInvoice(
    {
      invoiceId,
      customer: invoiceCustomerOf(customer),
      ...(customerId ? { customerId } : {}),
      currency: options.currency ?? 'EUR',
      date: '2026-03-01',
      items: [{ quantity: 1, unitAmount: total }],
      taxes: new Map(),
    },
    { status: 'none' },
    meta,
  );
  const booking = decideBookInvoice(
    { invoiceId, handle: `INV-${invoiceId}`, taxes: new Map(), customer: { snapshot: invoiceCustomerOf(customer), paymentTermsDays: null } },
    foldEvents(invoiceEvolver, draft),
    meta,
  );
  return [...draft, ...booking];
}
const invoiceOf = (events: readonly InvoiceEvent[]): Invoice => foldEvents(invoiceEvolver, events) as Invoice;
/** Credit applied in the booking of `events` (its InvoiceCreated, then its InvoiceBooked). */
const applyAtBooking = (entryId: string, events: readonly InvoiceEvent[], customer: CustomerState) =>
  decideApplyCustomerCredit({ entryId, booking: events.slice(1) }, foldEvents(invoiceEvolver, events.slice(0, 1)), customer, meta);

describe('Customer balance', () => {
  describe('decideAdjustCustomerBalance', () => {
    it('given a customer, when a negative amount is added, then credit: an adjustment entry with the balance it leaves (uppercase currency)', () => {
      spec
        .given([created])
        .when((state) => adjust(state, -1000, 'eur', 'entry-1', 'goodwill'))
        .then([adjusted({ description: 'goodwill' })]);
    });

    it('given credit, when a positive amount within it is added, then the credit shrinks by it', () => {
      spec
        .given(withCredit(1000))
        .when((state) => adjust(state, 400))
        .then([adjusted({ amount: 400, balanceAfter: -600 })]);
    });

    it('given credit, when a positive amount takes all of it, then the balance is 0', () => {
      spec
        .given(withCredit(1000))
        .when((state) => adjust(state, 1000))
        .then([adjusted({ amount: 1000, balanceAfter: 0 })]);
    });

    it('given credit, when a positive amount exceeds it, then 409 customer-balance-insufficient', () => {
      spec
        .given(withCredit(1000))
        .when((state) => adjust(state, 1001))
        .thenThrows({ kind: 'conflict', code: 'customer-balance-insufficient' });
    });

    it('given credit in EUR, when an amount owed in USD is added, then 409: each currency has its own balance', () => {
      spec
        .given(withCredit(1000))
        .when((state) => adjust(state, 1, 'USD'))
        .thenThrows({ kind: 'conflict', code: 'customer-balance-insufficient' });
    });

    it.each([
      ['zero', 0, 'EUR', '/amount'],
      ['a fraction', 10.5, 'EUR', '/amount'],
      ['a string', '100', 'EUR', '/amount'],
      ['an unsupported currency', -100, 'XXX', '/currency'],
      ['a currency that is no string', -100, 978, '/currency'],
    ])('given a customer, when the entry has %s, then 422 at its pointer', (_name, amount, currency, pointer) => {
      spec
        .given([created])
        .when((state) => adjust(state, amount, currency))
        .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer })] });
    });

    it('given a customer, when everything is wrong, then every problem at once', () => {
      expect(() => adjust(customerOf([created]), 0, 'nope', 'e', 'x'.repeat(501))).toThrow(
        expect.objectContaining({
          errors: [
            expect.objectContaining({ pointer: '/amount' }),
            expect.objectContaining({ pointer: '/currency' }),
            expect.objectContaining({ pointer: '/description' }),
          ],
        }),
      );
    });

    it('given an archived customer, when an entry is added, then 409 customer-archived', () => {
      spec
        .given([created, archived])
        .when((state) => adjust(state, -100))
        .thenThrows({ kind: 'conflict', code: 'customer-archived' });
    });

    it('given no customer, when an entry is added, then 404', () => {
      spec
        .given([])
        .when((state) => adjust(state, -100))
        .thenThrows({ kind: 'not_found' });
    });
  });

  describe('evolve and the view', () => {
    it('keeps one balance per currency; the view shows the credit available, sorted by currency', () => {
      const customer = customerOf([
        created,
        adjusted({ currency: 'USD', balanceAfter: -300 }),
        adjusted({ balanceAfter: -1000 }),
        adjusted({ balanceAfter: -250 }),
      ]);
      expect(customer.balances).toEqual({ USD: -300, EUR: -250 });
      expect(toCustomerView(customer).balances).toEqual([
        { currency: 'EUR', available: 250 },
        { currency: 'USD', available: 300 },
      ]);
    });

    it('a customer without entries has no balances', () => {
      expect(toCustomerView(customerOf([created])).balances).toEqual([]);
    });
  });

  describe('decideApplyCustomerCredit (at booking)', () => {
    it('given credit below the total, when the invoice is booked, then all of the credit is applied: a settlement and an invoice_applied entry', () => {
      const booked = bookedInvoice('inv-1', 5000);
      const { invoiceEvents, customerEvents } = applyAtBooking('entry-2', booked, customerOf(withCredit(1000)));
      expect(customerEvents).toEqual([
        adjusted({
          entryId: 'entry-2',
          amount: 1000,
          balanceAfter: 0,
          kind: 'invoice_applied',
          invoiceId: 'inv-1',
          description: 'Applied to invoice INV-inv-1',
        }),
      ]);
      expect(invoiceEvents).toEqual([
        {
          type: 'InvoiceSettlementAdded',
          schemaVersion: 1,
          data: {
            invoiceId: 'inv-1',
            date: '2026-03-01',
            amount: 1000,
            reference: 'entry-2',
            note: 'Credit balance applied',
            addedAt: NOW,
            settlementStatus: 'under_settled',
            balanceEntryId: 'entry-2',
          },
        },
      ]);
      const view = toInvoiceView(invoiceOf([...bookedInvoice('inv-1', 5000), ...invoiceEvents]));
      expect(view).toMatchObject({ creditApplied: 1000, totalDue: 4000, settlementStatus: 'under_settled' });
    });

    it('given credit beyond the total, when the invoice is booked, then the total is applied and the invoice is settled; the rest stays', () => {
      const { invoiceEvents, customerEvents } = applyAtBooking('entry-2', bookedInvoice('inv-1', 600), customerOf(withCredit(1000)));
      expect(customerEvents[0].data).toMatchObject({ amount: 600, balanceAfter: -400 });
      expect(toInvoiceView(invoiceOf([...bookedInvoice('inv-1', 600), ...invoiceEvents]))).toMatchObject({
        creditApplied: 600,
        totalDue: 0,
        settlementStatus: 'settled',
      });
      expect(availableCredit(customerOf([...withCredit(1000), ...customerEvents]), 'EUR')).toBe(400);
    });

    it.each([
      ['no credit', () => bookedInvoice('inv-1', 600), () => customerOf([created])],
      ['credit in another currency', () => bookedInvoice('inv-1', 600, { currency: 'USD' }), () => customerOf(withCredit(1000))],
      ['an inline one-off customer', () => bookedInvoice('inv-1', 600, { customerId: null }), () => customerOf(withCredit(1000))],
      ['another customer record', () => bookedInvoice('inv-1', 600, { customerId: 'other' }), () => customerOf(withCredit(1000))],
      ['an invoice with nothing due', () => bookedInvoice('inv-1', 0), () => customerOf(withCredit(1000))],
    ])('given %s, when the invoice is booked, then nothing is applied', (_name, invoice, customer) => {
      expect(applyAtBooking('entry-2', invoice(), customer())).toEqual({ invoiceEvents: [], customerEvents: [] });
    });

    it('given an invoice booked before (with or without credit), when credit is offered to it again, then nothing: only its booking applies credit', () => {
      const booked = bookedInvoice('inv-1', 5000);
      const first = applyAtBooking('entry-2', booked, customerOf(withCredit(1000)));
      const richer = customerOf([...withCredit(1000), adjusted({ entryId: 'more', balanceAfter: -2000 })]);
      const invoice = foldEvents(invoiceEvolver, [...booked, ...first.invoiceEvents]);
      expect(decideApplyCustomerCredit({ entryId: 'entry-3', booking: booked.slice(1) }, invoice, richer, meta)).toEqual({
        invoiceEvents: [],
        customerEvents: [],
      });
      expect(decideApplyCustomerCredit({ entryId: 'entry-3', booking: [] }, foldEvents(invoiceEvolver, booked.slice(0, 1)), richer, meta)).toEqual({
        invoiceEvents: [],
        customerEvents: [],
      });
    });
  });

  describe('decideApplyCustomerCredit of a negative total (issue 41 #4)', () => {
    it('given credit or none, when an invoice of −2976 is booked, then the total goes to the balance once and that settles the invoice', () => {
      for (const credit of [0, 1000]) {
        const booked = bookedInvoice('inv-1', -2976);
        const customer = customerOf(credit === 0 ? [created] : withCredit(credit));
        const { invoiceEvents, customerEvents } = applyAtBooking('entry-2', booked, customer);
        expect(invoiceEvents).toEqual([
          {
            type: 'InvoiceSettlementAdded',
            schemaVersion: 1,
            data: {
              invoiceId: 'inv-1',
              date: '2026-03-01',
              amount: -2976,
              reference: 'entry-2',
              note: 'Credited to the customer balance',
              addedAt: NOW,
              settlementStatus: 'settled',
            },
          },
        ]);
        expect(customerEvents).toEqual([
          adjusted({
            entryId: 'entry-2',
            amount: -2976,
            description: 'Credit of invoice INV-inv-1',
            kind: 'invoice_credit',
            invoiceId: 'inv-1',
            balanceAfter: -credit - 2976,
          }),
        ]);
        expect(toInvoiceView(invoiceOf([...booked, ...invoiceEvents]))).toMatchObject({
          totalInclVat: -2976,
          totalDue: 0,
          settlementStatus: 'settled',
          creditApplied: 0,
        });
        expect(availableCredit(customerOf([...(credit === 0 ? [created] : withCredit(credit)), ...customerEvents]), 'EUR')).toBe(credit + 2976);
      }
    });

    it('given an inline one-off customer (no balance), when an invoice of −2976 is booked, then nothing: the credit stays on the invoice', () => {
      expect(applyAtBooking('entry-2', bookedInvoice('inv-1', -2976, { customerId: null }), customerOf([created]))).toEqual({
        invoiceEvents: [],
        customerEvents: [],
      });
    });

    it('given an invoice whose negative total went to the balance, when it is voided, then 409 invoice-paid: the credit is never given twice', () => {
      const booked = bookedInvoice('inv-1', -2976);
      const { invoiceEvents } = applyAtBooking('entry-2', booked, customerOf([created]));
      expect(() => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, invoiceOf([...booked, ...invoiceEvents]), meta)).toThrow(
        expect.objectContaining({ code: 'invoice-paid' }),
      );
    });
  });

  describe('decideReturnCustomerCredit and voiding', () => {
    const taking = () => {
      const booked = bookedInvoice('inv-1', 5000);
      const applied = applyAtBooking('entry-2', booked, customerOf(withCredit(1000)));
      return { invoice: [...booked, ...applied.invoiceEvents], customer: [...withCredit(1000), ...applied.customerEvents] };
    };

    it('given an invoice that took credit, when it is voided, then the void is allowed and the credit goes back: a negative settlement and a void_returned entry', () => {
      const { invoice, customer } = taking();
      const voided = decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, invoiceOf(invoice), meta);
      const { invoiceEvents, customerEvents } = decideReturnCustomerCredit({ entryId: 'entry-3' }, invoiceOf(invoice), customerOf(customer), meta);
      expect(customerEvents).toEqual([
        adjusted({
          entryId: 'entry-3',
          amount: -1000,
          balanceAfter: -1000,
          kind: 'void_returned',
          invoiceId: 'inv-1',
          description: 'Returned by void of invoice INV-inv-1',
        }),
      ]);
      expect(invoiceEvents[0].data).toMatchObject({ amount: -1000, balanceEntryId: 'entry-3', settlementStatus: 'not_settled', date: '2026-03-01' });
      const after = invoiceOf([...invoice, ...invoiceEvents, ...voided]);
      expect(toInvoiceView(after)).toMatchObject({ status: 'void', creditApplied: 0, totalDue: 0, settlementStatus: 'not_settled' });
      expect(availableCredit(customerOf([...customer, ...customerEvents]), 'EUR')).toBe(1000);
    });

    it('given an invoice that took credit and was paid as well, when it is voided, then 409 invoice-paid', () => {
      const { invoice } = taking();
      const paid = decideAddSettlement({ invoiceId: 'inv-1', date: '2026-03-02', amount: 100, reference: 'pay' }, invoiceOf(invoice), meta);
      expect(() => decideVoidInvoice({ invoiceId: 'inv-1', paymentTaken: false }, invoiceOf([...invoice, ...paid]), meta)).toThrow(
        expect.objectContaining({ code: 'invoice-paid' }),
      );
    });

    it('given an invoice that took no credit, when it is voided, then nothing goes back', () => {
      expect(decideReturnCustomerCredit({ entryId: 'entry-3' }, invoiceOf(bookedInvoice('inv-1', 5000)), customerOf([created]), meta)).toEqual({
        invoiceEvents: [],
        customerEvents: [],
      });
    });
  });

  describe('decideCreditNoteBalanceEntry', () => {
    const command = { entryId: 'entry-4', creditNoteId: 'cn-1', creditNoteHandle: 'CN-000001', creditAmount: 700 };

    it('given an invoice of a customer record, when a credit note leaves creditAmount, then a credit_note entry credits the customer', () => {
      expect(decideCreditNoteBalanceEntry(command, invoiceOf(bookedInvoice('inv-1', 5000)), customerOf([created]), meta)).toEqual([
        adjusted({
          entryId: 'entry-4',
          amount: -700,
          balanceAfter: -700,
          kind: 'credit_note',
          invoiceId: 'inv-1',
          creditNoteId: 'cn-1',
          description: 'Credit note CN-000001 for invoice INV-inv-1',
        }),
      ]);
    });

    it('given an inline one-off customer or no creditAmount, then no entry', () => {
      expect(decideCreditNoteBalanceEntry(command, invoiceOf(bookedInvoice('inv-1', 5000, { customerId: null })), customerOf([created]), meta)).toEqual([]);
      expect(decideCreditNoteBalanceEntry({ ...command, creditAmount: 0 }, invoiceOf(bookedInvoice('inv-1', 5000)), customerOf([created]), meta)).toEqual([]);
    });
  });

  describe('properties (an independent ledger as oracle)', () => {
    type Step = { op: 'credit'; amount: number } | { op: 'debit'; amount: number } | { op: 'book'; total: number } | { op: 'rebook' } | { op: 'void' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ op: fc.constant('credit' as const), amount: fc.integer({ min: 1, max: 10_000 }) }),
      fc.record({ op: fc.constant('debit' as const), amount: fc.integer({ min: 1, max: 10_000 }) }),
      fc.record({ op: fc.constant('book' as const), total: fc.integer({ min: 0, max: 10_000 }) }),
      fc.constant({ op: 'rebook' as const }),
      fc.constant({ op: 'void' as const }),
    );

    it('credit is never applied twice nor beyond the balance, available never goes below 0, and the entries add up to the balance', () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
          let customer: CustomerEvent[] = [created];
          const invoices: InvoiceEvent[][] = [];
          // The oracle: plain arithmetic over the same steps, no decider involved.
          let credit = 0;
          const taken: number[] = [];
          let n = 0;
          const id = () => `id-${n++}`;
          for (const s of steps) {
            if (s.op === 'credit') {
              customer = [...customer, ...adjust(customerOf(customer), -s.amount, 'EUR', id())];
              credit += s.amount;
            } else if (s.op === 'debit') {
              if (s.amount > credit) {
                expect(() => adjust(customerOf(customer), s.amount, 'EUR', id())).toThrow(expect.objectContaining({ code: 'customer-balance-insufficient' }));
              } else {
                customer = [...customer, ...adjust(customerOf(customer), s.amount, 'EUR', id())];
                credit -= s.amount;
              }
            } else if (s.op === 'book' || (s.op === 'rebook' && invoices.length > 0)) {
              // rebook: the latest invoice is offered for credit again (a replayed booking), which must change nothing.
              const index = s.op === 'book' ? invoices.length : invoices.length - 1;
              const events = s.op === 'book' ? bookedInvoice(`inv-${index}`, s.total) : invoices[index];
              // A replayed booking decides on the invoice as it is now (booked): the draft it booked is gone.
              const before = s.op === 'book' ? foldEvents(invoiceEvolver, events.slice(0, 1)) : invoiceOf(events);
              const moved = decideApplyCustomerCredit({ entryId: id(), booking: events.slice(1, 2) }, before, customerOf(customer), meta);
              invoices[index] = [...events, ...moved.invoiceEvents];
              customer = [...customer, ...moved.customerEvents];
              if (s.op === 'book') {
                const applied = Math.min(s.total, credit);
                taken[index] = applied;
                credit -= applied;
              }
            } else if (s.op === 'void' && invoices.length > 0) {
              const index = invoices.length - 1;
              const invoice = invoiceOf(invoices[index]);
              if (invoice.status !== 'booked') continue;
              const moved = decideReturnCustomerCredit({ entryId: id() }, invoice, customerOf(customer), meta);
              invoices[index] = [
                ...invoices[index],
                ...moved.invoiceEvents,
                ...decideVoidInvoice({ invoiceId: invoice.id, paymentTaken: false }, invoice, meta),
              ];
              customer = [...customer, ...moved.customerEvents];
              credit += taken[index];
              taken[index] = 0;
            }
            const state = customerOf(customer);
            const entries = customer.filter((event): event is CustomerBalanceAdjusted => event.type === 'CustomerBalanceAdjusted');
            expect(availableCredit(state, 'EUR')).toBe(credit);
            expect(credit).toBeGreaterThanOrEqual(0);
            expect(credit + entries.reduce((sum, entry) => sum + entry.data.amount, 0)).toBe(0);
            expect(entries.every((entry) => entry.data.balanceAfter <= 0)).toBe(true);
          }
          invoices.forEach((events, index) => {
            const invoice = invoiceOf(events);
            expect(invoice.creditApplied).toBe(taken[index]);
            // At most one invoice_applied entry per invoice, whatever was replayed.
            const applications = customer.filter(
              (event) => event.type === 'CustomerBalanceAdjusted' && event.data.kind === 'invoice_applied' && event.data.invoiceId === invoice.id,
            );
            expect(applications.length).toBeLessThanOrEqual(1);
            expect(toInvoiceView(invoice).totalDue).toBe(invoice.status === 'void' ? 0 : invoice.totalInclVat - taken[index]);
          });
        }),
        { numRuns: 200 },
      );
    });
  });
});
