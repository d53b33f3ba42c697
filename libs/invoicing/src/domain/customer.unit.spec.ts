import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import {
  CustomerCreated,
  CustomerEvent,
  customerEvolver,
  customerHandleEvolver,
  decideArchiveCustomer,
  decideClaimCustomerHandle,
  decideCreateCustomer,
  decideReleaseCustomerHandle,
  decideUpdateCustomer,
  defaultCustomerHandle,
  validEmail,
  validLocale,
  validTaxIds,
} from './customer';
import { decideBookInvoice, decideCreateInvoice, decideUpdateInvoice } from './invoice-decisions';
import { invoiceEvolver } from './invoice';

const spec = deciderSpec(customerEvolver);
const handles = deciderSpec(customerHandleEvolver);
const meta = metadataAt('2026-03-01T10:00:00.000Z');
const ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const EMPTY_ADDRESS = { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null };

const created: CustomerCreated = {
  type: 'CustomerCreated',
  schemaVersion: 1,
  data: {
    customerId: ID,
    handle: 'acme',
    name: 'Acme Oy',
    email: 'billing@acme.example',
    billingAddress: EMPTY_ADDRESS,
    taxIds: [],
    locale: 'en',
    timeZone: 'UTC',
    currency: null,
    invoiceSettings: { templateGroupId: null, footer: null, paymentTermsDays: 14 },
    defaultPaymentMethod: { provider: 'sandbox', token: 'tok_success' },
    metadata: {},
    createdAt: '2026-02-01T00:00:00.000Z',
  },
};
const archived: CustomerEvent = { type: 'CustomerArchived', schemaVersion: 1, data: { customerId: ID, archivedAt: '2026-02-10T00:00:00.000Z' } };

describe('Customer decider', () => {
  describe('create', () => {
    it('given nothing, the defaults fill what the request leaves out', () => {
      spec
        .given([])
        .when((state) => decideCreateCustomer({ customerId: ID, handle: defaultCustomerHandle(ID), input: {} }, state, meta))
        .then([
          {
            type: 'CustomerCreated',
            schemaVersion: 1,
            data: {
              customerId: ID,
              handle: 'cus_7c9e66797425',
              name: null,
              email: null,
              billingAddress: EMPTY_ADDRESS,
              taxIds: [],
              locale: 'en',
              timeZone: 'UTC',
              currency: null,
              invoiceSettings: { templateGroupId: null, footer: null, paymentTermsDays: null },
              defaultPaymentMethod: null,
              metadata: {},
              createdAt: '2026-03-01T10:00:00.000Z',
            },
          },
        ]);
    });

    it('normalises: canonical locale and zone, uppercase currency, an eu_vat without spaces', () => {
      const [event] = decideCreateCustomer(
        {
          customerId: ID,
          handle: 'h',
          input: {
            locale: 'fi-fi',
            timeZone: 'europe/helsinki',
            currency: 'eur',
            taxIds: [
              { type: 'eu_vat', value: 'fi 2077 4740' },
              { type: 'us_ein', value: '12-3456789' },
            ],
            billingAddress: { city: 'Helsinki' },
          },
        },
        { status: 'none' },
        meta,
      );
      expect(event.data).toMatchObject({
        locale: 'fi-FI',
        timeZone: 'Europe/Helsinki',
        currency: 'EUR',
        taxIds: [
          { type: 'eu_vat', value: 'FI20774740' },
          { type: 'us_ein', value: '12-3456789' },
        ],
        billingAddress: { ...EMPTY_ADDRESS, city: 'Helsinki' },
      });
    });

    it('given an existing customer, refuses (customer-exists)', () => {
      spec
        .given([created])
        .when((state) => decideCreateCustomer({ customerId: ID, handle: 'x', input: {} }, state, meta))
        .thenThrows({ code: 'customer-exists' });
    });

    it('reports every invalid member at once, each at its pointer', () => {
      spec
        .given([])
        .when((state) =>
          decideCreateCustomer(
            {
              customerId: ID,
              handle: ' ',
              input: {
                handle: ' ',
                email: 'not-an-email',
                locale: 'en_US_x_',
                timeZone: 'Mars/Olympus',
                currency: 'XYZ',
                taxIds: [{ type: 'eu_vat', value: 'US123456789' }],
                invoiceSettings: { paymentTermsDays: 366, templateGroupId: 'nope' },
                defaultPaymentMethod: { provider: '', token: '' },
                metadata: { ['k'.repeat(41)]: 'v' },
              },
            },
            state,
            meta,
          ),
        )
        .thenThrows({
          code: 'validation-failed',
          errors: [
            { pointer: '/handle', detail: expect.any(String) },
            { pointer: '/email', detail: expect.any(String) },
            { pointer: '/taxIds/0/value', detail: expect.stringContaining("'US' is not an EU VAT country prefix") },
            { pointer: '/locale', detail: expect.any(String) },
            { pointer: '/timeZone', detail: expect.any(String) },
            { pointer: '/currency', detail: expect.any(String) },
            { pointer: '/invoiceSettings/templateGroupId', detail: expect.any(String) },
            { pointer: '/invoiceSettings/paymentTermsDays', detail: expect.any(String) },
            { pointer: '/defaultPaymentMethod/provider', detail: expect.any(String) },
            { pointer: '/defaultPaymentMethod/token', detail: expect.any(String) },
            { pointer: `/metadata/${'k'.repeat(41)}`, detail: expect.any(String) },
          ],
        });
    });
  });

  describe('validation', () => {
    it.each(['a@b.co', 'first.last+tag@sub.example.org'])('accepts the e-mail %s', (email) => expect(validEmail(email)).toBe(email));
    it.each(['', 'a@b', 'a b@c.de', '@c.de', 'a@@c.de', `${'x'.repeat(250)}@c.de`])('refuses the e-mail %j', (email) => {
      expect(() => validEmail(email)).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/email' })] }));
    });
    // Valid numbers of several member states (format and check digits), as given and as stored.
    it.each([
      ['DE129273398', 'DE129273398'],
      ['el 094259216', 'EL094259216'],
      ['fi 2077-4740', 'FI20774740'],
      ['ATU13585627', 'ATU13585627'],
      ['FR40303265045', 'FR40303265045'],
      ['nl.0044.95.445.B01', 'NL004495445B01'],
      ['ESA13585625', 'ESA13585625'],
      ['IE6388047V', 'IE6388047V'],
      ['PT501964843', 'PT501964843'],
      ['SE556188840401', 'SE556188840401'],
      ['XI980780684', 'XI980780684'],
    ])('accepts the eu_vat %s', (value, stored) => expect(validTaxIds([{ type: 'eu_vat', value }])).toEqual([{ type: 'eu_vat', value: stored }]));
    it.each([
      ['GR094259216', "'GR' is not an EU VAT country prefix"],
      ['GB980780684', "'GB' is not an EU VAT country prefix"],
      ['DE1', 'two-letter country prefix'],
      ['123456789', 'two-letter country prefix'],
      ['DE12345678901234', 'two-letter country prefix'],
      ['FI12', 'not a valid FI VAT number'],
      ['FI20774741', 'not a valid FI VAT number'],
      ['DE129273399', 'not a valid DE VAT number'],
      ['DE12927339', 'not a valid DE VAT number'],
      ['ATU13585628', 'not a valid AT VAT number'],
      ['PT501964842', 'not a valid PT VAT number'],
      ['SK2022749618', 'not a valid SK VAT number'],
      ['XI123456789', 'not a valid XI VAT number'],
    ])('refuses the eu_vat %s', (value, detail) => {
      expect(() => validTaxIds([{ type: 'eu_vat', value }])).toThrow(
        expect.objectContaining({ errors: [{ pointer: '/taxIds/0/value', detail: expect.stringContaining(detail) }] }),
      );
    });
    it('keeps other tax id types as free text, but refuses a blank value or a malformed type', () => {
      expect(validTaxIds([{ type: 'no_vat', value: 'whatever 123' }])).toEqual([{ type: 'no_vat', value: 'whatever 123' }]);
      expect(() => validTaxIds([{ type: 'No VAT', value: 'x' }])).toThrow(
        expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/taxIds/0/type' })] }),
      );
      expect(() => validTaxIds([{ type: 'no_vat', value: ' ' }])).toThrow(
        expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/taxIds/0/value' })] }),
      );
      expect(() => validTaxIds(Array.from({ length: 11 }, () => ({ type: 'x', value: 'y' })))).toThrow(
        expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/taxIds' })] }),
      );
    });
    it('locales are BCP 47 and stored canonical', () => {
      expect(validLocale('pt-br')).toBe('pt-BR');
      expect(validLocale('zh-hant-tw')).toBe('zh-Hant-TW');
      for (const bad of ['', 'english!', 'x', '123']) expect(() => validLocale(bad)).toThrow(expect.objectContaining({ code: 'validation-failed' }));
    });
    it('metadata: at most 50 pairs of string values up to 500 characters', () => {
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      spec
        .given([])
        .when((state) => decideCreateCustomer({ customerId: ID, handle: 'h', input: { metadata: many } }, state, meta))
        .thenThrows({ errors: [{ pointer: '/metadata', detail: expect.any(String) }] });
      spec
        .given([])
        .when((state) => decideCreateCustomer({ customerId: ID, handle: 'h', input: { metadata: { 'a/b': 'x'.repeat(501) } } }, state, meta))
        .thenThrows({ errors: [{ pointer: '/metadata/a~1b', detail: expect.any(String) }] });
    });
  });

  describe('a template group the invoice settings name', () => {
    const GROUP = '0b7a5f1e-3c2d-4e8f-9a6b-1c2d3e4f5a6b';
    const named = { invoiceSettings: { templateGroupId: GROUP } };
    const notFound = { kind: 'not_found', errors: [expect.objectContaining({ pointer: '/invoiceSettings/templateGroupId' })] };
    it('given one of the environment’s groups, when created or updated with it, then it is kept', () => {
      spec
        .given([])
        .when((state) => decideCreateCustomer({ customerId: ID, handle: 'h', input: named, templateGroupExists: true }, state, meta)[0].data)
        .then(expect.objectContaining({ invoiceSettings: { templateGroupId: GROUP, footer: null, paymentTermsDays: null } }));
      spec
        .given([created])
        .when((state) => decideUpdateCustomer({ customerId: ID, input: named, templateGroupExists: true }, state, meta)[0].data)
        .then(expect.objectContaining({ invoiceSettings: { templateGroupId: GROUP, footer: null, paymentTermsDays: 14 } }));
    });
    it.each([
      ['not found (another environment’s, or none)', false],
      ['not asked', undefined],
    ])('given a group %s, when created or updated with it, then 404 at /invoiceSettings/templateGroupId', (_label, templateGroupExists) => {
      spec
        .given([])
        .when((state) => decideCreateCustomer({ customerId: ID, handle: 'h', input: named, templateGroupExists }, state, meta))
        .thenThrows(notFound);
      spec
        .given([created])
        .when((state) => decideUpdateCustomer({ customerId: ID, input: named, templateGroupExists }, state, meta))
        .thenThrows(notFound);
    });
    it('given null or no group named, then nothing is asked and nothing refused', () => {
      spec
        .given([created])
        .when((state) => decideUpdateCustomer({ customerId: ID, input: { invoiceSettings: { templateGroupId: null } } }, state, meta).length)
        .then(1);
    });
  });

  describe('update', () => {
    it('keeps what the input omits, clears what it sets null, merges invoice settings', () => {
      const { createdAt: _createdAt, ...fields } = created.data;
      spec
        .given([created])
        .when((state) =>
          decideUpdateCustomer(
            { customerId: ID, input: { email: null, name: 'Acme Ltd', invoiceSettings: { footer: 'Thanks' }, handle: 'acme-2' } },
            state,
            meta,
          ),
        )
        .then([
          {
            type: 'CustomerUpdated',
            schemaVersion: 1,
            data: {
              ...fields,
              handle: 'acme-2',
              name: 'Acme Ltd',
              email: null,
              invoiceSettings: { templateGroupId: null, footer: 'Thanks', paymentTermsDays: 14 },
              updatedAt: '2026-03-01T10:00:00.000Z',
            },
          },
        ]);
    });
    it('given nothing, 404', () => {
      spec
        .given([])
        .when((state) => decideUpdateCustomer({ customerId: ID, input: {} }, state, meta))
        .thenThrows({ code: 'not-found' });
    });
    it('given an archived customer, refuses (customer-archived)', () => {
      spec
        .given([created, archived])
        .when((state) => decideUpdateCustomer({ customerId: ID, input: { name: 'x' } }, state, meta))
        .thenThrows({ code: 'customer-archived' });
    });
    it('refuses an invalid member', () => {
      spec
        .given([created])
        .when((state) => decideUpdateCustomer({ customerId: ID, input: { timeZone: 'Nowhere/Land' } }, state, meta))
        .thenThrows({ errors: [{ pointer: '/timeZone', detail: expect.any(String) }] });
    });
  });

  describe('archive', () => {
    it('archives a customer nothing runs for', () => {
      spec
        .given([created])
        .when((state) => decideArchiveCustomer({ customerId: ID, activeSubscriptions: 0, unsettledInvoices: 0 }, state, meta))
        .then([{ type: 'CustomerArchived', schemaVersion: 1, data: { customerId: ID, archivedAt: '2026-03-01T10:00:00.000Z' } }]);
      expect(customerEvolver.evolve(customerEvolver.evolve({ status: 'none' }, created), archived)).toMatchObject({
        status: 'archived',
        archivedAt: '2026-02-10T00:00:00.000Z',
      });
    });
    it.each([
      [1, 0, 'subscription'],
      [0, 2, 'booked invoice'],
    ])('refuses with %i running subscriptions and %i unsettled invoices (customer-in-use)', (activeSubscriptions, unsettledInvoices, named) => {
      spec
        .given([created])
        .when((state) => decideArchiveCustomer({ customerId: ID, activeSubscriptions, unsettledInvoices }, state, meta))
        .thenThrows({ code: 'customer-in-use', message: expect.stringContaining(named) });
    });
    it('refuses twice (customer-archived) and an unknown customer (404)', () => {
      spec
        .given([created, archived])
        .when((state) => decideArchiveCustomer({ customerId: ID, activeSubscriptions: 0, unsettledInvoices: 0 }, state, meta))
        .thenThrows({ code: 'customer-archived' });
      spec
        .given([])
        .when((state) => decideArchiveCustomer({ customerId: ID, activeSubscriptions: 0, unsettledInvoices: 0 }, state, meta))
        .thenThrows({ code: 'not-found' });
    });
  });

  describe('handle claims', () => {
    const claimed = { type: 'CustomerHandleClaimed' as const, schemaVersion: 1, data: { handle: 'acme', customerId: ID } };
    it('a free handle is claimed; the holder claiming again writes nothing; another customer is refused', () => {
      handles
        .given([])
        .when((state) => decideClaimCustomerHandle('acme', ID, state))
        .then([claimed]);
      handles
        .given([claimed])
        .when((state) => decideClaimCustomerHandle('acme', ID, state))
        .then([]);
      handles
        .given([claimed])
        .when((state) => decideClaimCustomerHandle('acme', 'other', state))
        .thenThrows({ code: 'customer-handle-taken' });
    });
    it('the holder releases it, after which it is free; nobody else can release it', () => {
      const released = { type: 'CustomerHandleReleased' as const, schemaVersion: 1, data: { handle: 'acme', customerId: ID } };
      handles
        .given([claimed])
        .when((state) => decideReleaseCustomerHandle('acme', ID, state))
        .then([released]);
      handles
        .given([claimed])
        .when((state) => decideReleaseCustomerHandle('acme', 'other', state))
        .then([]);
      handles
        .given([claimed, released])
        .when((state) => decideClaimCustomerHandle('acme', 'other', state))
        .then([{ ...claimed, data: { handle: 'acme', customerId: 'other' } }]);
    });
  });
});

describe('Invoices made out to a customer record', () => {
  const invoices = deciderSpec(invoiceEvolver);
  const snapshot = { id: ID, handle: 'acme', name: 'Acme Oy', billingAddress: EMPTY_ADDRESS };
  const draft = (dueDate: string | null) =>
    decideCreateInvoice(
      {
        invoiceId: 'inv-1',
        customer: snapshot,
        customerId: ID,
        currency: 'EUR',
        date: '2026-03-01',
        dueDate,
        items: [{ quantity: 1, unitAmount: 100 }],
        taxes: new Map(),
      },
      { status: 'none' },
      meta,
    );
  const atBooking = { snapshot: { ...snapshot, name: 'Acme Renamed' }, paymentTermsDays: 14 };

  it('booking freezes the record as it is then, and dates an invoice without a due date by its payment terms', () => {
    const events = decideBookInvoice(
      { invoiceId: 'inv-1', handle: 'INV-000001', taxes: new Map(), customer: atBooking },
      foldEvents(invoiceEvolver, draft(null)),
      meta,
    );
    expect(events[0].data).toMatchObject({ dueDate: '2026-03-15', customer: atBooking.snapshot });
    expect(foldEvents(invoiceEvolver, [...draft(null), ...events])).toMatchObject({ status: 'booked', customer: atBooking.snapshot, customerId: ID });
  });

  it('an explicit due date wins over the payment terms; an inline customer is never replaced', () => {
    const events = decideBookInvoice(
      { invoiceId: 'inv-1', handle: 'INV-000001', taxes: new Map(), customer: atBooking },
      foldEvents(invoiceEvolver, draft('2026-03-05')),
      meta,
    );
    expect(events[0].data).toMatchObject({ dueDate: '2026-03-05' });
    const inline = decideCreateInvoice(
      { invoiceId: 'inv-2', customer: snapshot, currency: 'EUR', items: [{ quantity: 1, unitAmount: 100 }], taxes: new Map() },
      { status: 'none' },
      meta,
    );
    const booked = decideBookInvoice(
      { invoiceId: 'inv-2', handle: 'INV-000002', taxes: new Map(), customer: atBooking },
      foldEvents(invoiceEvolver, inline),
      meta,
    );
    expect(booked[0].data).not.toHaveProperty('customer');
    expect(booked[0].data).toMatchObject({ dueDate: null });
  });

  it('updating a draft records the record’s current snapshot', () => {
    invoices
      .given(draft(null))
      .when(
        (state) =>
          decideUpdateInvoice({ invoiceId: 'inv-1', date: '2026-03-01', currency: null, taxes: new Map(), customer: atBooking.snapshot }, state, meta)[0].data,
      )
      .then(expect.objectContaining({ customer: atBooking.snapshot }));
  });
});
