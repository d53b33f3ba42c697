import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '@billing/shared-kernel';
import { Written } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, IfMatch, Page, ResourceIdPipe, resourceDocs, Versioned } from '@billing/platform';
import { Customer } from '../../domain';
import { ArchiveCustomerCommand } from '../archive-customer/archive-customer.command';
import { CreateCustomerCommand } from '../create-customer/create-customer.command';
import { UpdateCustomerCommand } from '../update-customer/update-customer.command';
import { EndCustomerDiscountCommand } from '../end-customer-discount/end-customer-discount.command';
import { AdjustCustomerBalanceCommand } from '../adjust-customer-balance/adjust-customer-balance.command';
import { BalanceTransactionView, toBalanceTransactionView } from '../read-model/balance-transaction-view';
import { BalanceTransactionPageDto, BalanceTransactionDto, BalanceTransactionRequestDto } from './balance-transaction.dto';
import { CUSTOMER_ORDER_BY, parseCustomerQuery } from '../read-model/customer-query';
import { CustomerView, toCustomerView } from '../read-model/customer-view';
import { CustomersReadModel, parseBalanceTransactionQuery } from '../read-model/customers.read-model';
import { CustomerDto, CustomerRequestDto, customerDiscounts, customerInput, CustomerPageDto } from './customer.dto';

const CUSTOMER_ID = { name: 'customerId', format: 'uuid', description: 'The customer id.' } as const;
/** Path ids are uuids; anything else names no customer: 404 like an unknown id. */
const CUSTOMER_ID_PIPE = new ResourceIdPipe('Customer');
const ETAG_HEADER = { ETag: { description: 'The customer version, for If-Match.', schema: { type: 'string', example: '"3"' } } };
const CREATED_HEADERS = { ...ETAG_HEADER, Location: { description: 'The new customer: /customers/{customerId}.', required: true, schema: { type: 'string' } } };
const ENTRY_ID_PIPE = new ResourceIdPipe('BalanceTransaction');
const DISCOUNT_ID_PIPE = new ResourceIdPipe('discount');
const ENTRY_ETAG = { ETag: { description: 'Always "1": an entry never changes.', schema: { type: 'string', example: '"1"' } } };
const ENTRY_HEADERS = {
  ...ENTRY_ETAG,
  Location: { description: 'The new entry: /customers/{customerId}/balance-transactions/{entryId}.', required: true, schema: { type: 'string' } },
};
const IF_MATCH = { name: 'if-match', required: false, description: 'An ETag from an earlier response; a stale one is a 409.' };
/** A templateGroupId that is well-formed but names no group of the caller's environment (another environment's included). */
const UNKNOWN_TEMPLATE_GROUP = 'invoiceSettings.templateGroupId names no template group of this environment (pointer /invoiceSettings/templateGroupId)';
const INVALID_BODY =
  'Invalid body (pointer at the member): unknown property, an e-mail, tax id (eu_vat: EU prefix, format and check digits), locale (BCP 47), time zone (IANA), currency, payment terms (0–365) or metadata (≤ 50 pairs, keys ≤ 40, values ≤ 500) that is not valid; ' +
  'a discount that is malformed (more than 5, not exactly one of couponId and promotionCode), names no coupon or promotion code of the environment, ' +
  'a coupon twice or one the customer has running, more than 5 running, or an amount off (or a minimum amount) without one in the customer’s currency (/discounts/<i>)';
const REDEMPTION_CONFLICTS =
  'a discount cannot be redeemed: coupon-exhausted, coupon-expired, coupon-archived, promotion-code-exhausted, promotion-code-expired, promotion-code-archived, promotion-code-restricted';
const NO_CUSTOMER = 'No such customer in this environment';
const CUSTOMER = resourceDocs({ type: CustomerDto, headers: ETAG_HEADER, id: CUSTOMER_ID, ifMatch: IF_MATCH, notFound: NO_CUSTOMER });
/** A customer's balance transactions: under the customer's id, never changed (no If-Match). */
const ENTRY = resourceDocs({ type: BalanceTransactionDto, headers: ENTRY_ETAG, id: CUSTOMER_ID, notFound: NO_CUSTOMER });

@ApiTags('Customers')
@Controller('customers')
export class CustomersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: CustomersReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @CUSTOMER.create({
    summary: 'Create a customer',
    description: 'Every member is optional; absent ones take their defaults (locale en, timeZone UTC, a generated handle).',
    body: CustomerRequestDto,
    answer: 'The new customer.',
    headers: CREATED_HEADERS,
    conflict: `Another customer of the environment has the handle (customer-handle-taken), or ${REDEMPTION_CONFLICTS}`,
    invalid: INVALID_BODY,
    problems: { 404: UNKNOWN_TEMPLATE_GROUP },
  })
  async create(@Caller() caller: CallerContext, @Body() body: CustomerRequestDto): Promise<Versioned<CustomerView>> {
    const written = await this.commands.execute(
      new CreateCustomerCommand(caller.environmentId, customerInput(body), commandContext(caller, this.clock), customerDiscounts(body)),
    );
    return answer(written, `/customers/${written.id}`);
  }

  @Get()
  @CUSTOMER.list({
    summary: 'List customers',
    description:
      'filter (repeatable, combined with and): `field op value`, fields email, handle, status (eq, ne) and createdAt (eq, ne, gt, ge, lt, le), ' +
      'e.g. `filter=email eq billing@example.com&filter=createdAt ge 2026-01-01`. Archived (deleted) customers are listed only when a filter names status. ' +
      'orderBy Id (default), CreatedAt or Handle, `-` for descending; ties by id. Keyset paging (a pageToken belongs to its orderBy).',
    queries: [{ name: 'filter', required: false, isArray: true, type: String }, { name: 'orderBy', required: false, enum: CUSTOMER_ORDER_BY }, 'page'],
    answer: 'A page of customers',
    type: CustomerPageDto,
    invalid: 'A malformed filter, unknown field or operator, bad value, orderBy, limit or pageToken (pointer /query/<name>[/<index>])',
  })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<CustomerView>> {
    return this.readModel.list(caller.environmentId, parseCustomerQuery(query));
  }

  @Get(':customerId')
  @CUSTOMER.read({ summary: 'Get a customer', description: 'Archived (deleted) customers too, with status archived.', answer: 'The customer.' })
  async get(@Caller() caller: CallerContext, @Param('customerId', CUSTOMER_ID_PIPE) customerId: string): Promise<Versioned<CustomerView>> {
    const found = await this.readModel.customer(caller.environmentId, customerId);
    if (!found) throw new NotFoundError('Customer', customerId);
    return found;
  }

  @Put(':customerId')
  @CUSTOMER.write({
    summary: 'Update a customer',
    description: 'Partial: members left out are kept, null clears one (to its default). Draft invoices of the customer show the change; booked ones never do.',
    body: CustomerRequestDto,
    answer: 'The updated customer.',
    notFound: `${NO_CUSTOMER}, or ${UNKNOWN_TEMPLATE_GROUP}`,
    conflict: `Archived (customer-archived), the handle is taken (customer-handle-taken), If-Match is stale (version-conflict), or ${REDEMPTION_CONFLICTS}`,
    invalid: `${INVALID_BODY}; a malformed If-Match (/headers/if-match)`,
  })
  async update(
    @Caller() caller: CallerContext,
    @Param('customerId', CUSTOMER_ID_PIPE) customerId: string,
    @Body() body: CustomerRequestDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<CustomerView>> {
    return answer(
      await this.commands.execute(
        new UpdateCustomerCommand(
          caller.environmentId,
          customerId,
          customerInput(body),
          commandContext(caller, this.clock),
          expectedVersion,
          customerDiscounts(body),
        ),
      ),
    );
  }

  @Delete(':customerId')
  @CUSTOMER.write({
    summary: 'Delete (archive) a customer',
    description:
      'Refused (409 customer-in-use) while the customer has a subscription that has not ended or a booked invoice with an amount still due. ' +
      'Otherwise archived: still readable (status archived), no longer listed by default, and no new invoice or subscription may name it.',
    answer: 'The archived customer.',
    conflict: 'In use (customer-in-use), already archived (customer-archived), or If-Match is stale (version-conflict)',
    invalid: 'A malformed If-Match (/headers/if-match)',
  })
  async archive(
    @Caller() caller: CallerContext,
    @Param('customerId', CUSTOMER_ID_PIPE) customerId: string,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<CustomerView>> {
    return answer(
      await this.commands.execute(new ArchiveCustomerCommand(caller.environmentId, customerId, commandContext(caller, this.clock), expectedVersion)),
    );
  }

  @Delete(':customerId/discounts/:discountId')
  @CUSTOMER.write({
    summary: "End a customer's discount early",
    description:
      'No subscription invoice made from now on gets the discount; its end becomes today (in the customer’s time zone). Invoices already made keep theirs.',
    params: [{ name: 'discountId', format: 'uuid', description: 'the id of one of the customer’s discounts' }],
    answer: 'The customer, the discount ended.',
    notFound: `${NO_CUSTOMER}, or no such discount of it`,
    conflict: 'The discount has ended already (discount-ended), the customer is archived (customer-archived), or If-Match is stale',
    invalid: 'A malformed If-Match (/headers/if-match)',
  })
  async endDiscount(
    @Caller() caller: CallerContext,
    @Param('customerId', CUSTOMER_ID_PIPE) customerId: string,
    @Param('discountId', DISCOUNT_ID_PIPE) discountId: string,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<CustomerView>> {
    return answer(
      await this.commands.execute(
        new EndCustomerDiscountCommand(caller.environmentId, customerId, discountId, commandContext(caller, this.clock), expectedVersion),
      ),
    );
  }

  @Post(':customerId/balance-transactions')
  @ENTRY.write({
    status: 201,
    summary: "Add an entry to a customer's credit balance",
    description:
      'amount: negative = credit to the customer, positive = an amount owed (taken from the credit available, at most all of it). ' +
      'Credit is applied to the customer’s invoices in its currency when they are booked. Answers the entry; the customer shows its balances.',
    body: BalanceTransactionRequestDto,
    answer: 'The entry.',
    headers: ENTRY_HEADERS,
    conflict: 'Archived (customer-archived), or a positive amount beyond the credit available (customer-balance-insufficient)',
    invalid: 'amount not a non-zero integer, an unsupported currency, a description over 500 characters, or an unknown property',
  })
  async addBalanceTransaction(
    @Caller() caller: CallerContext,
    @Param('customerId', CUSTOMER_ID_PIPE) customerId: string,
    @Body() body: BalanceTransactionRequestDto,
  ): Promise<Versioned<BalanceTransactionView>> {
    const { id, state } = await this.commands.execute(
      new AdjustCustomerBalanceCommand(
        caller.environmentId,
        customerId,
        { amount: body.amount, currency: body.currency, description: body.description },
        commandContext(caller, this.clock),
      ),
    );
    // An entry never changes: its ETag is always "1".
    return new Versioned(toBalanceTransactionView(state), 1, `/customers/${customerId}/balance-transactions/${id}`);
  }

  @Get(':customerId/balance-transactions')
  @ENTRY.read({
    summary: "List a customer's balance transactions",
    description: 'Newest first; keyset paging (limit, pageToken).',
    queries: ['page'],
    answer: 'A page of balance transactions, newest first.',
    type: BalanceTransactionPageDto,
    invalid: 'An unknown query parameter, a bad limit or pageToken (pointer /query/<name>)',
  })
  async balanceTransactions(
    @Caller() caller: CallerContext,
    @Param('customerId', CUSTOMER_ID_PIPE) customerId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<Page<BalanceTransactionView>> {
    const page = await this.readModel.balanceTransactions(caller.environmentId, customerId, parseBalanceTransactionQuery(query));
    if (!page) throw new NotFoundError('Customer', customerId);
    return page;
  }

  @Get(':customerId/balance-transactions/:entryId')
  @ENTRY.read({
    summary: 'Get a balance transaction',
    params: [{ name: 'entryId', format: 'uuid', description: 'The balance transaction id.' }],
    answer: 'The entry.',
    notFound: 'No such customer, or no such entry of it, in this environment',
  })
  async balanceTransaction(
    @Caller() caller: CallerContext,
    @Param('customerId', CUSTOMER_ID_PIPE) customerId: string,
    @Param('entryId', ENTRY_ID_PIPE) entryId: string,
  ): Promise<Versioned<BalanceTransactionView>> {
    const found = await this.readModel.balanceTransaction(caller.environmentId, customerId, entryId);
    if (!found) throw new NotFoundError('BalanceTransaction', entryId);
    return new Versioned(found, 1);
  }
}

function answer({ version, state }: Written<Customer>, location?: string): Versioned<CustomerView> {
  return new Versioned(toCustomerView(state), version, location);
}
