import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '@billing/shared-kernel';
import { Written } from '@billing/event-store';
import { ApiPageQuery, Caller, CallerContext, Clock, commandContext, IfMatch, Page, problemResponse, ResourceIdPipe, Versioned } from '@billing/platform';
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

@ApiTags('Customers')
@Controller('customers')
export class CustomersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: CustomersReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a customer',
    description: 'Every member is optional; absent ones take their defaults (locale en, timeZone UTC, a generated handle).',
  })
  @ApiBody({ type: CustomerRequestDto })
  @ApiResponse({ status: 201, description: 'The new customer.', type: CustomerDto, headers: CREATED_HEADERS })
  @ApiResponse({ status: 404, ...problemResponse(UNKNOWN_TEMPLATE_GROUP) })
  @ApiResponse({ status: 409, ...problemResponse(`Another customer of the environment has the handle (customer-handle-taken), or ${REDEMPTION_CONFLICTS}`) })
  @ApiResponse({ status: 422, ...problemResponse(INVALID_BODY) })
  async create(@Caller() caller: CallerContext, @Body() body: CustomerRequestDto): Promise<Versioned<CustomerView>> {
    const written = await this.commands.execute(
      new CreateCustomerCommand(caller.environmentId, customerInput(body), commandContext(caller, this.clock), customerDiscounts(body)),
    );
    return answer(written, `/customers/${written.id}`);
  }

  @Get()
  @ApiOperation({
    summary: 'List customers',
    description:
      'filter (repeatable, combined with and): `field op value`, fields email, handle, status (eq, ne) and createdAt (eq, ne, gt, ge, lt, le), ' +
      'e.g. `filter=email eq billing@example.com&filter=createdAt ge 2026-01-01`. Archived (deleted) customers are listed only when a filter names status. ' +
      'orderBy Id (default), CreatedAt or Handle, `-` for descending; ties by id. Keyset paging (a pageToken belongs to its orderBy).',
  })
  @ApiQuery({ name: 'filter', required: false, isArray: true, type: String })
  @ApiQuery({ name: 'orderBy', required: false, enum: CUSTOMER_ORDER_BY })
  @ApiPageQuery()
  @ApiResponse({ status: 200, description: 'A page of customers', type: CustomerPageDto })
  @ApiResponse({
    status: 422,
    ...problemResponse('A malformed filter, unknown field or operator, bad value, orderBy, limit or pageToken (pointer /query/<name>[/<index>])'),
  })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<CustomerView>> {
    return this.readModel.list(caller.environmentId, parseCustomerQuery(query));
  }

  @Get(':customerId')
  @ApiOperation({ summary: 'Get a customer', description: 'Archived (deleted) customers too, with status archived.' })
  @ApiParam(CUSTOMER_ID)
  @ApiResponse({ status: 200, description: 'The customer.', type: CustomerDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such customer in this environment') })
  async get(@Caller() caller: CallerContext, @Param('customerId', CUSTOMER_ID_PIPE) customerId: string): Promise<Versioned<CustomerView>> {
    const found = await this.readModel.customer(caller.environmentId, customerId);
    if (!found) throw new NotFoundError('Customer', customerId);
    return found;
  }

  @Put(':customerId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update a customer',
    description: 'Partial: members left out are kept, null clears one (to its default). Draft invoices of the customer show the change; booked ones never do.',
  })
  @ApiParam(CUSTOMER_ID)
  @ApiHeader(IF_MATCH)
  @ApiBody({ type: CustomerRequestDto })
  @ApiResponse({ status: 200, description: 'The updated customer.', type: CustomerDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse(`No such customer in this environment, or ${UNKNOWN_TEMPLATE_GROUP}`) })
  @ApiResponse({
    status: 409,
    ...problemResponse(
      `Archived (customer-archived), the handle is taken (customer-handle-taken), If-Match is stale (version-conflict), or ${REDEMPTION_CONFLICTS}`,
    ),
  })
  @ApiResponse({ status: 422, ...problemResponse(`${INVALID_BODY}; a malformed If-Match (/headers/if-match)`) })
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
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete (archive) a customer',
    description:
      'Refused (409 customer-in-use) while the customer has a subscription that has not ended or a booked invoice with an amount still due. ' +
      'Otherwise archived: still readable (status archived), no longer listed by default, and no new invoice or subscription may name it.',
  })
  @ApiParam(CUSTOMER_ID)
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: 200, description: 'The archived customer.', type: CustomerDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such customer in this environment') })
  @ApiResponse({
    status: 409,
    ...problemResponse('In use (customer-in-use), already archived (customer-archived), or If-Match is stale (version-conflict)'),
  })
  @ApiResponse({ status: 422, ...problemResponse('A malformed If-Match (/headers/if-match)') })
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
  @HttpCode(200)
  @ApiOperation({
    summary: "End a customer's discount early",
    description:
      'No subscription invoice made from now on gets the discount; its end becomes today (in the customer’s time zone). Invoices already made keep theirs.',
  })
  @ApiParam(CUSTOMER_ID)
  @ApiParam({ name: 'discountId', format: 'uuid', description: 'the id of one of the customer’s discounts' })
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: 200, description: 'The customer, the discount ended.', type: CustomerDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such customer in this environment, or no such discount of it') })
  @ApiResponse({
    status: 409,
    ...problemResponse('The discount has ended already (discount-ended), the customer is archived (customer-archived), or If-Match is stale'),
  })
  @ApiResponse({ status: 422, ...problemResponse('A malformed If-Match (/headers/if-match)') })
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
  @HttpCode(201)
  @ApiOperation({
    summary: "Add an entry to a customer's credit balance",
    description:
      'amount: negative = credit to the customer, positive = an amount owed (taken from the credit available, at most all of it). ' +
      'Credit is applied to the customer’s invoices in its currency when they are booked. Answers the entry; the customer shows its balances.',
  })
  @ApiParam(CUSTOMER_ID)
  @ApiBody({ type: BalanceTransactionRequestDto })
  @ApiResponse({ status: 201, description: 'The entry.', type: BalanceTransactionDto, headers: ENTRY_HEADERS })
  @ApiResponse({ status: 404, ...problemResponse('No such customer in this environment') })
  @ApiResponse({
    status: 409,
    ...problemResponse('Archived (customer-archived), or a positive amount beyond the credit available (customer-balance-insufficient)'),
  })
  @ApiResponse({
    status: 422,
    ...problemResponse('amount not a non-zero integer, an unsupported currency, a description over 500 characters, or an unknown property'),
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
  @ApiOperation({ summary: "List a customer's balance transactions", description: 'Newest first; keyset paging (limit, pageToken).' })
  @ApiParam(CUSTOMER_ID)
  @ApiPageQuery()
  @ApiResponse({ status: 200, description: 'A page of balance transactions, newest first.', type: BalanceTransactionPageDto })
  @ApiResponse({ status: 404, ...problemResponse('No such customer in this environment') })
  @ApiResponse({ status: 422, ...problemResponse('An unknown query parameter, a bad limit or pageToken (pointer /query/<name>)') })
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
  @ApiOperation({ summary: 'Get a balance transaction' })
  @ApiParam(CUSTOMER_ID)
  @ApiParam({ name: 'entryId', format: 'uuid', description: 'The balance transaction id.' })
  @ApiResponse({ status: 200, description: 'The entry.', type: BalanceTransactionDto, headers: ENTRY_ETAG })
  @ApiResponse({ status: 404, ...problemResponse('No such customer, or no such entry of it, in this environment') })
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
