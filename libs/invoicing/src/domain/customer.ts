import {
  isEmailAddress,
  childPointer,
  CommandMetadata,
  ConflictError,
  DomainError,
  DomainEvent,
  Evolver,
  FieldError,
  NotFoundError,
  ValidationError,
  isSupportedCurrency,
  isUuid,
  validTimeZone,
  deciderOf,
} from '@billing/shared-kernel';
import { Address, InvoiceCustomer } from './invoice-events';
import type { CustomerBalanceAdjusted } from './customer-balance-events';
import { CustomerDiscount, CustomerDiscountEvent, evolveCustomerDiscounts } from './customer-discounts';
import { euVatProblem } from './eu-vat';

/**
 * The Customer aggregate: the record a billing team keeps per customer (the
 * e-mail invoices go to, tax ids, locale and time zone, invoice settings, the
 * default payment method). It lives in invoicing because booking an invoice
 * reads it (the customer snapshot, payment terms; later the credit balance)
 * in the booking's own transaction.
 *
 * Every field is validated here, purely; the HTTP layer only checks types and
 * unknown properties. A create or update reports every problem at once, each
 * at its JSON pointer.
 */

export const MAX_METADATA_ENTRIES = 50;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;
export const MAX_TAX_IDS = 10;
export const MAX_PAYMENT_TERMS_DAYS = 365;

export interface TaxId {
  /** `eu_vat` is checked for its member state's format and check digits; any other type is free text. */
  readonly type: string;
  readonly value: string;
}

export interface CustomerInvoiceSettings {
  readonly templateGroupId: string | null;
  readonly footer: string | null;
  /** Due date = booking date + this many days, for an invoice booked without a due date of its own. */
  readonly paymentTermsDays: number | null;
}

/** The provider's token stays in the event and the state: every view shows only its hint. */
export interface CustomerPaymentMethod {
  readonly provider: string;
  readonly token: string;
}

/** Everything a customer's create or update may set. */
export interface CustomerFields {
  readonly name: string | null;
  readonly email: string | null;
  readonly billingAddress: Address;
  readonly taxIds: readonly TaxId[];
  /** Canonical BCP 47 (`en`, `fi-FI`). */
  readonly locale: string;
  /** Canonical IANA name. */
  readonly timeZone: string;
  /** Uppercase ISO 4217, the preferred currency. */
  readonly currency: string | null;
  readonly invoiceSettings: CustomerInvoiceSettings;
  readonly defaultPaymentMethod: CustomerPaymentMethod | null;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface Customer extends CustomerFields {
  readonly status: 'active' | 'archived';
  readonly id: string;
  readonly handle: string;
  readonly createdAt: string;
  readonly updatedAt: string | null;
  readonly archivedAt: string | null;
  /**
   * The credit-balance ledger's sum per currency (uppercase ISO 4217), in the
   * ledger's sign: negative = credit the customer has (see customer-balance.ts).
   * A currency appears with the first entry in it. Absent on states stored
   * before balances existed: none.
   */
  readonly balances?: Readonly<Record<string, number>>;
  /** Coupons redeemed on the customer, in the order applied (customer-discounts.ts). Absent on states stored before they existed: none. */
  readonly discounts?: readonly CustomerDiscount[];
}

export type CustomerState = { readonly status: 'none' } | Customer;

// ---------------------------------------------------------------- events

export interface CustomerCreatedData extends CustomerFields {
  readonly customerId: string;
  readonly handle: string;
  readonly createdAt: string;
}
/** The customer after the update, in full (handle included: it may change). */
export interface CustomerUpdatedData extends CustomerFields {
  readonly customerId: string;
  readonly handle: string;
  readonly updatedAt: string;
}
export interface CustomerArchivedData {
  readonly customerId: string;
  readonly archivedAt: string;
}
export type CustomerCreated = DomainEvent<'CustomerCreated', CustomerCreatedData>;
export type CustomerUpdated = DomainEvent<'CustomerUpdated', CustomerUpdatedData>;
export type CustomerArchived = DomainEvent<'CustomerArchived', CustomerArchivedData>;
export type CustomerEvent = CustomerCreated | CustomerUpdated | CustomerArchived | CustomerBalanceAdjusted | CustomerDiscountEvent;

/** On a handle's claim stream: who holds it now (null: released by a handle change). */
export type CustomerHandleClaimed = DomainEvent<'CustomerHandleClaimed', { readonly handle: string; readonly customerId: string }>;
export type CustomerHandleReleased = DomainEvent<'CustomerHandleReleased', { readonly handle: string; readonly customerId: string }>;
export type CustomerHandleEvent = CustomerHandleClaimed | CustomerHandleReleased;

// ---------------------------------------------------------------- state

export function evolveCustomer(state: CustomerState, event: CustomerEvent): CustomerState {
  switch (event.type) {
    case 'CustomerCreated': {
      const { customerId, createdAt, ...fields } = event.data;
      return { ...fields, status: 'active', id: customerId, createdAt, updatedAt: null, archivedAt: null, balances: {}, discounts: [] };
    }
    case 'CustomerUpdated': {
      if (state.status === 'none') return state;
      const { customerId: _id, ...fields } = event.data;
      return { ...state, ...fields };
    }
    case 'CustomerArchived':
      return state.status === 'none' ? state : { ...state, status: 'archived', archivedAt: event.data.archivedAt, updatedAt: event.data.archivedAt };
    case 'CustomerBalanceAdjusted': {
      if (state.status === 'none') return state;
      const { currency, balanceAfter } = event.data;
      // The entry carries the balance it leaves: the ledger's sum is never recomputed from amounts on read.
      return { ...state, balances: { ...(state.balances ?? {}), [currency]: balanceAfter } };
    }
    case 'CustomerDiscountApplied':
    case 'CustomerDiscountEnded':
      // Discounts are not the record's own fields (like the balance): updatedAt stays.
      return state.status === 'none' ? state : { ...state, discounts: evolveCustomerDiscounts(state.discounts ?? [], event) };
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const customerEvolver: Evolver<CustomerState, CustomerEvent> = { initialState: () => ({ status: 'none' }), evolve: evolveCustomer };

export interface CustomerHandleClaim {
  readonly customerId: string | null;
}

export const customerHandleEvolver: Evolver<CustomerHandleClaim, CustomerHandleEvent> = {
  initialState: () => ({ customerId: null }),
  evolve: (state, event) => {
    if (event.type === 'CustomerHandleClaimed') return { customerId: event.data.customerId };
    if (event.type === 'CustomerHandleReleased') return { customerId: null };
    return state;
  },
};

/** The customer as an invoice names it (INTERFACE.md's InvoiceCustomer): what drafts show and booking freezes. */
export function invoiceCustomerOf(customer: Customer): InvoiceCustomer {
  return { id: customer.id, handle: customer.handle, name: customer.name, email: customer.email, billingAddress: customer.billingAddress };
}

// ---------------------------------------------------------------- commands

/** Fields as a request gives them: on create, absent means the default; on update, absent keeps and null clears. */
export interface CustomerFieldsInput {
  readonly handle?: string | null;
  readonly name?: string | null;
  readonly email?: string | null;
  readonly billingAddress?: Partial<Address> | null;
  readonly taxIds?: readonly TaxId[] | null;
  readonly locale?: string | null;
  readonly timeZone?: string | null;
  readonly currency?: string | null;
  readonly invoiceSettings?: Partial<CustomerInvoiceSettings> | null;
  readonly defaultPaymentMethod?: CustomerPaymentMethod | null;
  readonly metadata?: Readonly<Record<string, string>> | null;
}

export interface CreateCustomer {
  readonly customerId: string;
  /** The caller's handle, or the generated default (`cus_` + the id's first characters). */
  readonly handle: string;
  readonly input: CustomerFieldsInput;
  /** Whether the template group the input names is one of the environment's (the handler asks templates); absent: not asked. */
  readonly templateGroupExists?: boolean;
}

export interface UpdateCustomer {
  readonly customerId: string;
  readonly input: CustomerFieldsInput;
  /** As on create. */
  readonly templateGroupExists?: boolean;
}

/** The handle a customer gets when the request names none: short, readable, and unique with the id it comes from. */
export function defaultCustomerHandle(customerId: string): string {
  return `cus_${customerId.replace(/-/g, '').slice(0, 12)}`;
}

/** The handle a create or update asks for, checked (a blank one is a 422); undefined: none asked. */
export function requestedHandle(handle: string | null | undefined): string | undefined {
  if (handle === undefined) return undefined;
  if (typeof handle !== 'string' || handle.trim() === '' || handle.length > 255) throw ValidationError.at('/handle', 'must be 1 to 255 characters, not blank');
  return handle;
}

export function decideCreateCustomer(command: CreateCustomer, state: CustomerState, meta: CommandMetadata): CustomerEvent[] {
  if (state.status !== 'none') throw new ConflictError('customer-exists', `customer ${command.customerId} already exists`);
  const fields = validFields(command.input, DEFAULTS);
  assertTemplateGroupFound(command.input, command.templateGroupExists);
  return [
    {
      type: 'CustomerCreated',
      schemaVersion: 1,
      data: { customerId: command.customerId, handle: command.handle, ...fields, createdAt: meta.now.toISOString() },
    },
  ];
}

/** A partial update: what the input omits is kept. An archived customer is final (409 customer-archived). */
export function decideUpdateCustomer(command: UpdateCustomer, state: CustomerState, meta: CommandMetadata): CustomerEvent[] {
  const customer = activeCustomer(state, command.customerId);
  const fields = validFields(command.input, customer);
  assertTemplateGroupFound(command.input, command.templateGroupExists);
  const handle = requestedHandle(command.input.handle) ?? customer.handle;
  return [{ type: 'CustomerUpdated', schemaVersion: 1, data: { customerId: customer.id, handle, ...fields, updatedAt: meta.now.toISOString() } }];
}

/**
 * A template group the input names (a valid id: validFields has checked it) must be one of the environment's: else a
 * 404 at its pointer, also when the group is another environment's. Not found unless the handler found it.
 */
function assertTemplateGroupFound(input: CustomerFieldsInput, exists: boolean | undefined): void {
  const requested = input.invoiceSettings?.templateGroupId;
  if (requested == null || exists === true) return;
  throw new DomainError('not_found', 'not-found', `template group ${requested} was not found`, [
    { pointer: '/invoiceSettings/templateGroupId', detail: 'names no template group of this environment' },
  ]);
}

/**
 * What stands in the way of archiving: the caller finds it (subscriptions
 * through a query port, invoices in the read model) and passes it in.
 */
export interface ArchiveCustomer {
  readonly customerId: string;
  /** Subscriptions of the customer that have not ended. */
  readonly activeSubscriptions: number;
  /** Booked invoices of the customer with something still due. */
  readonly unsettledInvoices: number;
}

export function decideArchiveCustomer(command: ArchiveCustomer, state: CustomerState, meta: CommandMetadata): CustomerEvent[] {
  const customer = activeCustomer(state, command.customerId);
  const uses = [
    command.activeSubscriptions > 0 ? `${command.activeSubscriptions} subscription(s) that have not ended` : null,
    command.unsettledInvoices > 0 ? `${command.unsettledInvoices} booked invoice(s) with an amount still due` : null,
  ].filter((use): use is string => use !== null);
  if (uses.length > 0) throw new ConflictError('customer-in-use', `customer ${customer.handle} has ${uses.join(' and ')}: it cannot be deleted yet`);
  return [{ type: 'CustomerArchived', schemaVersion: 1, data: { customerId: customer.id, archivedAt: meta.now.toISOString() } }];
}

/** Claims a handle for the customer: a handle is held by one customer of the environment at a time. */
export function decideClaimCustomerHandle(handle: string, customerId: string, state: CustomerHandleClaim): CustomerHandleClaimed[] {
  if (state.customerId === customerId) return [];
  if (state.customerId !== null) throw new ConflictError('customer-handle-taken', `another customer of this environment has the handle '${handle}'`);
  return [{ type: 'CustomerHandleClaimed', schemaVersion: 1, data: { handle, customerId } }];
}

export function decideReleaseCustomerHandle(handle: string, customerId: string, state: CustomerHandleClaim): CustomerHandleReleased[] {
  return state.customerId === customerId ? [{ type: 'CustomerHandleReleased', schemaVersion: 1, data: { handle, customerId } }] : [];
}

/** The customer, existing and not archived (an invoice or subscription may name only such a one). */
export function activeCustomer(state: CustomerState, customerId: string): Customer {
  if (state.status === 'none') throw new NotFoundError('Customer', customerId);
  if (state.status === 'archived') throw new ConflictError('customer-archived', `customer ${state.handle} is archived (deleted)`);
  return state;
}

// ---------------------------------------------------------------- validation

const EMPTY_ADDRESS: Address = { street1: null, street2: null, postalCode: null, city: null, county: null, country: null, state: null };

/** What a new customer has where the request says nothing. */
const DEFAULTS: CustomerFields = {
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
};

/**
 * The input over `base` (the defaults on create, the current record on
 * update): absent keeps the base, null clears (to the default), a value is
 * checked. Every problem is reported at once.
 */
function validFields(input: CustomerFieldsInput, base: CustomerFields): CustomerFields {
  const errors: FieldError[] = [];
  const check = <T>(pointer: string, validate: () => T): T | undefined => {
    try {
      return validate();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...(error.errors.length > 0 ? error.errors : [{ pointer, detail: error.message }]));
      return undefined;
    }
  };
  const pick = <K extends keyof CustomerFields>(key: K, validate: (value: NonNullable<CustomerFieldsInput[K]>) => CustomerFields[K]): CustomerFields[K] => {
    const value = input[key];
    if (value === undefined) return base[key];
    if (value === null) return DEFAULTS[key];
    return check(`/${key}`, () => validate(value as NonNullable<CustomerFieldsInput[K]>)) ?? base[key];
  };
  check('/handle', () => requestedHandle(input.handle));
  const fields: CustomerFields = {
    name: pick('name', (name) => text(name, '/name', 500)),
    email: pick('email', (email) => validEmail(email)),
    billingAddress: pick('billingAddress', validAddress),
    taxIds: pick('taxIds', validTaxIds),
    locale: pick('locale', validLocale),
    timeZone: pick('timeZone', (zone) => validTimeZone(zone, '/timeZone')),
    currency: pick('currency', validCurrency),
    invoiceSettings: pick('invoiceSettings', (settings) => validInvoiceSettings(settings, base.invoiceSettings)),
    defaultPaymentMethod: pick('defaultPaymentMethod', validPaymentMethod),
    metadata: pick('metadata', validMetadata),
  };
  if (errors.length > 0) throw new ValidationError(errors.length === 1 ? errors[0].detail : 'The customer is invalid.', errors);
  return fields;
}

function text(value: unknown, pointer: string, max: number): string {
  if (typeof value !== 'string' || value.length > max) throw ValidationError.at(pointer, `must be a string of at most ${max} characters`);
  return value;
}

/** The one e-mail rule: the customer record's, and an inline invoice customer's (at `/customer/email`). */
export function validEmail(value: unknown, pointer = '/email'): string {
  if (!isEmailAddress(value)) {
    throw ValidationError.at(pointer, 'must be an e-mail address such as billing@example.com (at most 254 characters)');
  }
  return value;
}

function validAddress(address: Partial<Address>): Address {
  const valid = { ...EMPTY_ADDRESS };
  for (const key of Object.keys(EMPTY_ADDRESS) as (keyof Address)[]) {
    const value = address[key];
    valid[key as keyof Address] = (value == null ? null : text(value, `/billingAddress/${key}`, 500)) as never;
  }
  return valid;
}

/** An `eu_vat` is normalised (spaces, dots and dashes removed, uppercase) and checked (euVatProblem); other types are free text. */
export function validTaxIds(taxIds: readonly TaxId[]): TaxId[] {
  if (!Array.isArray(taxIds) || taxIds.length > MAX_TAX_IDS) throw ValidationError.at('/taxIds', `must be an array of at most ${MAX_TAX_IDS} tax ids`);
  const errors: FieldError[] = [];
  const valid = taxIds.map((taxId, i) => {
    const pointer = `/taxIds/${i}`;
    if (typeof taxId?.type !== 'string' || !/^[a-z][a-z0-9_]{0,49}$/.test(taxId.type)) {
      errors.push({ pointer: `${pointer}/type`, detail: 'must be a lowercase type such as eu_vat (letters, digits, _; at most 50)' });
      return taxId;
    }
    if (typeof taxId.value !== 'string' || taxId.value.trim() === '' || taxId.value.length > 100) {
      errors.push({ pointer: `${pointer}/value`, detail: 'must be 1 to 100 characters, not blank' });
      return taxId;
    }
    if (taxId.type !== 'eu_vat') return { type: taxId.type, value: taxId.value };
    const value = taxId.value.replace(/[\s.-]/g, '').toUpperCase();
    const problem = euVatProblem(value);
    if (problem !== null) errors.push({ pointer: `${pointer}/value`, detail: problem });
    return { type: 'eu_vat', value };
  });
  if (errors.length > 0) throw new ValidationError('A tax id is invalid.', errors);
  return valid;
}

/** BCP 47 through Intl, stored in its canonical form (`fi-fi` → `fi-FI`). */
export function validLocale(value: unknown): string {
  if (typeof value === 'string' && value.length <= 35) {
    try {
      const [canonical] = Intl.getCanonicalLocales(value);
      if (canonical) return canonical;
    } catch {
      // RangeError: not a well-formed language tag; reported below.
    }
  }
  throw ValidationError.at('/locale', 'must be a BCP 47 language tag such as en, fi-FI or pt-BR');
}

function validCurrency(value: unknown): string {
  const code = typeof value === 'string' ? value.toLowerCase() : null;
  if (!isSupportedCurrency(code)) throw ValidationError.at('/currency', 'must be a supported ISO 4217 currency code', 'unsupported-currency');
  return code.toUpperCase();
}

/** A partial object too: members it omits keep the current settings. */
function validInvoiceSettings(settings: Partial<CustomerInvoiceSettings>, base: CustomerInvoiceSettings): CustomerInvoiceSettings {
  const errors: FieldError[] = [];
  const { templateGroupId, footer, paymentTermsDays } = settings;
  if (templateGroupId != null && (typeof templateGroupId !== 'string' || !isUuid(templateGroupId))) {
    errors.push({ pointer: '/invoiceSettings/templateGroupId', detail: 'must be a template group id (uuid) or null' });
  }
  if (footer != null && (typeof footer !== 'string' || footer.length > 2000)) {
    errors.push({ pointer: '/invoiceSettings/footer', detail: 'must be a string of at most 2000 characters or null' });
  }
  if (paymentTermsDays != null && !(Number.isInteger(paymentTermsDays) && paymentTermsDays >= 0 && paymentTermsDays <= MAX_PAYMENT_TERMS_DAYS)) {
    errors.push({ pointer: '/invoiceSettings/paymentTermsDays', detail: `must be a whole number of days from 0 to ${MAX_PAYMENT_TERMS_DAYS} or null` });
  }
  if (errors.length > 0) throw new ValidationError('The invoice settings are invalid.', errors);
  return {
    templateGroupId: templateGroupId === undefined ? base.templateGroupId : (templateGroupId?.toLowerCase() ?? null),
    footer: footer === undefined ? base.footer : footer,
    paymentTermsDays: paymentTermsDays === undefined ? base.paymentTermsDays : paymentTermsDays,
  };
}

function validPaymentMethod(method: CustomerPaymentMethod): CustomerPaymentMethod {
  const errors: FieldError[] = [];
  if (typeof method.provider !== 'string' || method.provider.length < 1 || method.provider.length > 50) {
    errors.push({ pointer: '/defaultPaymentMethod/provider', detail: 'must be a payment provider name of 1 to 50 characters' });
  }
  if (typeof method.token !== 'string' || method.token.length < 1 || method.token.length > 500) {
    errors.push({ pointer: '/defaultPaymentMethod/token', detail: "must be the provider's token, 1 to 500 characters" });
  }
  if (errors.length > 0) throw new ValidationError('The payment method is invalid.', errors);
  return { provider: method.provider, token: method.token };
}

/** At most 50 string pairs, keys 1–40 characters, values at most 500: metadata is the integrator's, never read by the service. */
export function validMetadata(metadata: Readonly<Record<string, string>>): Record<string, string> {
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw ValidationError.at('/metadata', 'must be an object of string pairs');
  const entries = Object.entries(metadata);
  if (entries.length > MAX_METADATA_ENTRIES) throw ValidationError.at('/metadata', `must have at most ${MAX_METADATA_ENTRIES} keys, got ${entries.length}`);
  const errors: FieldError[] = [];
  for (const [key, value] of entries) {
    const pointer = childPointer('/metadata', key);
    if (key.length < 1 || key.length > MAX_METADATA_KEY_LENGTH) errors.push({ pointer, detail: `keys are 1 to ${MAX_METADATA_KEY_LENGTH} characters` });
    else if (typeof value !== 'string' || value.length > MAX_METADATA_VALUE_LENGTH) {
      errors.push({ pointer, detail: `values are strings of at most ${MAX_METADATA_VALUE_LENGTH} characters` });
    }
  }
  if (errors.length > 0) throw new ValidationError('The metadata is invalid.', errors);
  return Object.fromEntries(entries);
}

/** The Customer aggregate as one value: what it folds (customerEvolver) and what each of its commands decides. */
export const customerDecider = deciderOf(customerEvolver, {
  CreateCustomer: decideCreateCustomer,
  UpdateCustomer: decideUpdateCustomer,
  ArchiveCustomer: decideArchiveCustomer,
});
