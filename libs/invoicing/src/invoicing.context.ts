import { BoundedContext, eventTypesOf, NotificationDefinition, StreamDefinition } from '@billing/platform';
import { InvoiceDetails } from './hosted-link/invoice-details';
import {
  CustomerCreatedData,
  CustomerEvent,
  CustomerHandleEvent,
  customerEvolver,
  CustomerState,
  CustomerUpdatedData,
  InvoiceEvent,
  InvoiceState,
  TAX_CODE_EVENT_SCHEMA_VERSION,
  TaxCodeEvent,
  TaxCodeState,
  invoiceEvolver,
  taxCodeEvolver,
  upcastTaxCodeEvent,
} from './domain';
import { INVOICING_PROBLEMS } from './invoicing.problems';
import { InvoicingModule } from './invoicing.module';
import { invoicingMigrations } from './migrations';
import { invoiceViewOf } from './read-model/invoice-view';
import { invoicingProjection } from './read-model/invoicing.projection';
import { taxCodeViewOf } from './read-model/tax-code-view';
import { customerViewOf, publicPaymentMethod } from './customers/read-model/customer-view';
import { customersProjection } from './customers/read-model/customers.projection';
import { CUSTOMER_HANDLE_STREAM, CUSTOMER_STREAM, INVOICE_STREAM, TAX_CODE_STREAM, taxCodeStreamId } from './streams';

/** Every event type of a stream with the schema version it is written in (a type missing here does not compile). */
const INVOICE_EVENTS: Record<InvoiceEvent['type'], number> = {
  InvoiceCreated: 1,
  InvoiceUpdated: 1,
  InvoiceBooked: 1,
  InvoiceSettlementAdded: 1,
  InvoiceDuplicated: 1,
  InvoiceVoided: 1,
  InvoiceMarkedUncollectible: 1,
  CreditNoteIssued: 1,
  InvoiceHostedLinkRotated: 1,
};
const TAX_CODE_EVENTS: Record<TaxCodeEvent['type'], number> = {
  TaxCodeCreated: TAX_CODE_EVENT_SCHEMA_VERSION,
  TaxCodeUpdated: TAX_CODE_EVENT_SCHEMA_VERSION,
};

const invoiceStream: StreamDefinition<InvoiceState, InvoiceEvent> = {
  type: INVOICE_STREAM,
  idScheme: 'the invoice id: a random uuid the service chooses (create, duplicate)',
  events: eventTypesOf(INVOICE_EVENTS),
  view: { evolver: invoiceEvolver, toView: invoiceViewOf },
  // As-of answers get the hosted link like live ones: the members of GET /invoices/{id} either way.
  resource: { type: 'invoice', path: 'invoices', presenter: InvoiceDetails },
};

const taxCodeStream: StreamDefinition<TaxCodeState, TaxCodeEvent> = {
  type: TAX_CODE_STREAM,
  idScheme: 'uuid v5 of (environment, code): creating a code again finds the same stream (taxCodeStreamId)',
  events: eventTypesOf(TAX_CODE_EVENTS),
  // v1 carried the rate as a fraction; v2 carries it in basis points.
  upcast: upcastTaxCodeEvent,
  view: { evolver: taxCodeEvolver, toView: taxCodeViewOf },
  // Routes name a tax code by its code; its stream id is derived from it.
  resource: { type: 'tax_code', path: 'tax-codes', streamIdOf: taxCodeStreamId },
};

const CUSTOMER_EVENTS: Record<CustomerEvent['type'], number> = {
  CustomerCreated: 1,
  CustomerUpdated: 1,
  CustomerArchived: 1,
  CustomerBalanceAdjusted: 1,
  CustomerDiscountApplied: 1,
  CustomerDiscountEnded: 1,
};
const CUSTOMER_HANDLE_EVENTS: Record<CustomerHandleEvent['type'], number> = { CustomerHandleClaimed: 1, CustomerHandleReleased: 1 };

const customerStream: StreamDefinition<CustomerState, CustomerEvent> = {
  type: CUSTOMER_STREAM,
  idScheme: 'the customer id: a random uuid the service chooses (POST /customers)',
  events: eventTypesOf(CUSTOMER_EVENTS),
  view: { evolver: customerEvolver, toView: customerViewOf },
  resource: { type: 'customer', path: 'customers' },
  // The events log shows the default payment method as the API does: the token only as its hint.
  publicData: (type, data) => {
    if (type !== 'CustomerCreated' && type !== 'CustomerUpdated') return data;
    const fields = data as CustomerCreatedData | CustomerUpdatedData;
    return fields.defaultPaymentMethod ? { ...fields, defaultPaymentMethod: publicPaymentMethod(fields.defaultPaymentMethod) } : data;
  },
};

const customerHandleStream: StreamDefinition = {
  type: CUSTOMER_HANDLE_STREAM,
  idScheme: 'uuid v5 of (environment, handle): a handle is held by one customer at a time (customerHandleStream)',
  events: eventTypesOf(CUSTOMER_HANDLE_EVENTS),
};

const isSettled = (data: unknown) => typeof data === 'object' && data !== null && (data as { settlementStatus?: unknown }).settlementStatus === 'settled';

/**
 * The webhook notifications invoicing publishes (names are public API: never
 * renamed). Each carries the resource as of its event: the invoice as GET
 * /invoices/{id} renders it, or the tax code.
 * - Applying a booked credit note records an InvoiceSettlementAdded on both
 *   the invoice and the credit note: each announces invoice.settlement_added
 *   (and invoice.settled when it settles it), like any settlement.
 * - InvoiceDuplicated announces nothing: the copy or credit note announces
 *   itself with its own invoice.created, and nothing visible of the source
 *   changes.
 */
const notifications: NotificationDefinition[] = [
  {
    name: 'invoice.created',
    streamType: INVOICE_STREAM,
    eventType: 'InvoiceCreated',
    description: 'An invoice is created: a new draft, a copy or a credit note.',
  },
  { name: 'invoice.updated', streamType: INVOICE_STREAM, eventType: 'InvoiceUpdated', description: 'A draft invoice is updated.' },
  { name: 'invoice.booked', streamType: INVOICE_STREAM, eventType: 'InvoiceBooked', description: 'An invoice or credit note is booked and has its number.' },
  {
    name: 'invoice.settlement_added',
    streamType: INVOICE_STREAM,
    eventType: 'InvoiceSettlementAdded',
    description: 'A settlement is added to an invoice: a payment or refund, or a booked credit note applied (to the invoice and to the credit note).',
  },
  {
    name: 'invoice.settled',
    streamType: INVOICE_STREAM,
    eventType: 'InvoiceSettlementAdded',
    description: 'A settlement makes the invoice settled (sent after invoice.settlement_added, with its own id).',
    when: isSettled,
  },
  {
    name: 'invoice.voided',
    streamType: INVOICE_STREAM,
    eventType: 'InvoiceVoided',
    description: 'A booked, unpaid invoice is void: nothing is due, its collection stops, its number stays used.',
  },
  {
    name: 'invoice.marked_uncollectible',
    streamType: INVOICE_STREAM,
    eventType: 'InvoiceMarkedUncollectible',
    description: 'An invoice is marked uncollectible (by hand, or by dunning after its last failed try): its collection stops, it stays payable.',
  },
  {
    name: 'invoice.hosted_link_rotated',
    streamType: INVOICE_STREAM,
    eventType: 'InvoiceHostedLinkRotated',
    description: "An invoice's hosted page link is replaced (PUT /invoices/{id}/hosted-link/rotate): the old link opens nothing.",
  },
  { name: 'customer.created', streamType: CUSTOMER_STREAM, eventType: 'CustomerCreated', description: 'A customer is created.' },
  { name: 'customer.updated', streamType: CUSTOMER_STREAM, eventType: 'CustomerUpdated', description: 'A customer is updated.' },
  {
    name: 'customer.balance_changed',
    streamType: CUSTOMER_STREAM,
    eventType: 'CustomerBalanceAdjusted',
    description:
      "A customer's credit balance changed (a balance transaction: an adjustment, credit applied at booking, a credit note's creditAmount, credit returned by a void): the customer with its balances.",
  },
  {
    name: 'customer.discount_applied',
    streamType: CUSTOMER_STREAM,
    eventType: 'CustomerDiscountApplied',
    description: 'A coupon is redeemed on a customer (POST or PUT /customers with discounts): every subscription invoice of the customer gets it.',
  },
  {
    name: 'customer.discount_ended',
    streamType: CUSTOMER_STREAM,
    eventType: 'CustomerDiscountEnded',
    description: "A customer's discount ends early (DELETE /customers/{id}/discounts/{discountId}) or, duration once, is used by a subscription invoice.",
  },
  {
    name: 'customer.deleted',
    streamType: CUSTOMER_STREAM,
    eventType: 'CustomerArchived',
    description: 'A customer is deleted: archived, still readable with status archived.',
  },
  {
    name: 'credit_note.issued',
    streamType: INVOICE_STREAM,
    eventType: 'CreditNoteIssued',
    description:
      'A credit note is issued with POST /invoices/{id}/credit-notes (after its invoice.created and invoice.booked): the credit note with its disposition (creditNote).',
  },
  { name: 'tax_code.created', streamType: TAX_CODE_STREAM, eventType: 'TaxCodeCreated', description: 'A tax code is created.' },
  { name: 'tax_code.updated', streamType: TAX_CODE_STREAM, eventType: 'TaxCodeUpdated', description: 'A tax code is updated.' },
];

/**
 * Invoicing: the tax-code register, customers and invoices (drafts, booking
 * with gapless numbers, settlements, duplicates and credit notes),
 * event-sourced, with the `invoices`, `tax_codes` and `customers` read models.
 */
export const invoicingContext: BoundedContext = {
  name: 'invoicing',
  module: InvoicingModule,
  migrations: invoicingMigrations,
  streams: [invoiceStream, taxCodeStream, customerStream, customerHandleStream],
  projections: [invoicingProjection, customersProjection],
  reactors: [],
  notifications,
  problems: INVOICING_PROBLEMS,
};
