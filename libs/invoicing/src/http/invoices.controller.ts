import { Body, Controller, Get, Headers, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiExtraModels, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { NotFoundError, ValidationError } from '@billing/shared-kernel';
import { Caller, CallerContext, Clock, commandMetadata, etagFor, isUuid, parseLimit, problemResponse, ResourceIdPipe } from '@billing/platform';
import { InvoiceView, InvoiceStatus, InvoiceType, SettlementStatus } from '../domain';
import { AddSettlementCommand } from '../add-settlement/add-settlement.command';
import { AddSettlementDto } from '../add-settlement/add-settlement.dto';
import { BookInvoiceCommand } from '../book-invoice/book-invoice.command';
import { BookInvoiceDto } from '../book-invoice/book-invoice.dto';
import { CreateInvoiceCommand, CreateInvoiceInput } from '../create-invoice/create-invoice.command';
import { CreateInvoiceDto } from '../create-invoice/create-invoice.dto';
import { DuplicateInvoiceCommand } from '../duplicate-invoice/duplicate-invoice.command';
import { DuplicateInvoiceDto } from '../duplicate-invoice/duplicate-invoice.dto';
import { UpdateInvoiceCommand } from '../update-invoice/update-invoice.command';
import { UpdateInvoiceDto } from '../update-invoice/update-invoice.dto';
import { InvoicingReadModel } from '../infrastructure/invoicing.read-model';
import { Versioned } from '../infrastructure/streams';
import { InvoiceDetailDto, InvoicePageDto } from './invoice-detail.dto';
import { InvoiceLineInputDto } from './invoice-line-input.dto';
import { oneOf, readQuery } from './params';

const STATUSES: readonly InvoiceStatus[] = ['draft', 'booked'];
const TYPES: readonly InvoiceType[] = ['invoice', 'credit_note'];
const SETTLEMENT_STATUSES: readonly SettlementStatus[] = ['settled', 'over_settled', 'under_settled', 'not_settled'];

const ETAG_HEADER = { ETag: { description: 'The invoice version, for If-Match.', schema: { type: 'string', example: '"3"' } } };
const IF_MATCH = { name: 'if-match', required: false, description: 'An ETag from an earlier response; a stale one is a 409.' };
const INVOICE_ID = { name: 'invoiceId', format: 'uuid', description: 'The invoice id.' };

@ApiTags('Invoices')
@ApiExtraModels(InvoiceLineInputDto)
@Controller('invoices')
export class InvoicesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: InvoicingReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a draft invoice', description: 'Lines name tax codes of the environment; the figures are computed. Read-only fields are refused (422).' })
  @ApiResponse({ status: 201, description: 'The new draft invoice.', type: InvoiceDetailDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 422, ...problemResponse('Invalid body: unknown property, unknown tax code or currency, too many decimals, discount, more than 500 lines (pointer /items)') })
  async create(@Caller() caller: CallerContext, @Body() body: CreateInvoiceDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<InvoiceView> {
    const result = await this.commands.execute<CreateInvoiceCommand, Versioned<InvoiceView>>(
      new CreateInvoiceCommand(caller, body as CreateInvoiceInput, commandMetadata(this.clock)),
    );
    return this.answer(reply, result);
  }

  @Get()
  @ApiOperation({
    summary: 'List invoices',
    description:
      'Newest first (createdAt, then id, descending), keyset paged with an opaque pageToken. Filters combine with and. ' +
      'Items are invoices without `items` (lines) and `settlements`; GET /invoices/{invoiceId} has them.',
  })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'pageToken', required: false, schema: { type: 'string' }, description: 'nextPageToken of the previous page.' })
  @ApiQuery({ name: 'status', required: false, enum: STATUSES })
  @ApiQuery({ name: 'type', required: false, enum: TYPES })
  @ApiQuery({ name: 'settlementStatus', required: false, enum: SETTLEMENT_STATUSES })
  @ApiQuery({ name: 'customerId', required: false, schema: { type: 'string', format: 'uuid' } })
  @ApiResponse({ status: 200, description: '`{items, nextPageToken}`; nextPageToken is null on the last page.', type: InvoicePageDto })
  @ApiResponse({ status: 422, ...problemResponse('Invalid query parameter (pointer /query/<name>)') })
  async list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, ['limit', 'pageToken', 'status', 'type', 'settlementStatus', 'customerId']);
    const limit = parseLimit(q.limit);
    if (q.customerId !== undefined && !isUuid(q.customerId)) throw ValidationError.at('/query/customerId', 'must be a uuid');
    const filter = {
      status: oneOf('status', q.status, STATUSES),
      type: oneOf('type', q.type, TYPES),
      settlementStatus: oneOf('settlementStatus', q.settlementStatus, SETTLEMENT_STATUSES),
      customerId: q.customerId,
    };
    return this.readModel.invoices(caller.environmentId, filter, limit, q.pageToken);
  }

  @Get(':invoiceId')
  @ApiOperation({ summary: 'Get an invoice' })
  @ApiParam(INVOICE_ID)
  @ApiResponse({ status: 200, description: 'The invoice.', type: InvoiceDetailDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such invoice in this environment') })
  async get(@Caller() caller: CallerContext, @Param('invoiceId', new ResourceIdPipe('Invoice')) invoiceId: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const found = await this.readModel.invoice(caller.environmentId, invoiceId);
    if (!found) throw new NotFoundError('Invoice', invoiceId);
    return this.answer(reply, found);
  }

  @Put(':invoiceId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a draft invoice', description: '`items` replaces the lines; a line with the id of an existing line keeps it.' })
  @ApiParam(INVOICE_ID)
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: 200, description: 'The updated invoice.', type: InvoiceDetailDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such invoice in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('The invoice is booked (invoice-not-draft), or If-Match is stale / a concurrent write won (version-conflict)') })
  @ApiResponse({ status: 422, ...problemResponse('Invalid body: unknown property, unknown tax code or currency, too many decimals, discount, more than 500 lines (pointer /items)') })
  async update(
    @Caller() caller: CallerContext,
    @Param('invoiceId', new ResourceIdPipe('Invoice')) invoiceId: string,
    @Body() body: UpdateInvoiceDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute<UpdateInvoiceCommand, Versioned<InvoiceView>>(
      new UpdateInvoiceCommand(caller, invoiceId, { date: body.date, currency: body.currency, dueDate: body.dueDate, items: body.items }, ifMatch, commandMetadata(this.clock)),
    );
    return this.answer(reply, result);
  }

  @Post(':invoiceId/duplicate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Duplicate or credit an invoice',
    description: 'Creates a new draft from the invoice and answers with the NEW invoice. reverse true (booked invoices only) makes a credit note negating every figure; booking it settles the invoice.',
  })
  @ApiParam(INVOICE_ID)
  @ApiHeader(IF_MATCH)
  @ApiBody({ type: DuplicateInvoiceDto, required: false })
  @ApiResponse({ status: 200, description: 'The new draft invoice or credit note.', type: InvoiceDetailDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such invoice in this environment') })
  @ApiResponse({
    status: 409,
    ...problemResponse('reverse of a draft (invoice-not-booked), of a credit note (credit-note-cannot-be-reversed) or of a fully credited invoice (credit-exceeds-invoice); stale If-Match'),
  })
  async duplicate(
    @Caller() caller: CallerContext,
    @Param('invoiceId', new ResourceIdPipe('Invoice')) invoiceId: string,
    @Body() body: DuplicateInvoiceDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute<DuplicateInvoiceCommand, Versioned<InvoiceView>>(
      new DuplicateInvoiceCommand(caller, invoiceId, optional(body)?.reverse ?? false, ifMatch, commandMetadata(this.clock)),
    );
    return this.answer(reply, result);
  }

  @Put(':invoiceId/book')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Book a draft invoice',
    description:
      "Assigns the next gapless handle of the environment (INV-000001, CN-000001) and freezes the figures at the tax codes' current rates. " +
      'Without a date the draft keeps its own. Booking a credit note applies it to the invoice it credits: a settlement on both, so the credit note is settled.',
  })
  @ApiParam(INVOICE_ID)
  @ApiHeader(IF_MATCH)
  @ApiBody({ type: BookInvoiceDto, required: false })
  @ApiResponse({ status: 200, description: 'The booked invoice.', type: InvoiceDetailDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such invoice in this environment') })
  @ApiResponse({
    status: 409,
    ...problemResponse(
      'Already booked (invoice-already-booked), no lines (invoice-has-no-lines), a credit note beyond what is still creditable (credit-exceeds-invoice) or not reducing the invoice (credit-note-wrong-sign), stale If-Match',
    ),
  })
  @ApiResponse({ status: 422, ...problemResponse("An invalid date, or one after the draft's due date (pointer /date)") })
  async book(
    @Caller() caller: CallerContext,
    @Param('invoiceId', new ResourceIdPipe('Invoice')) invoiceId: string,
    @Body() body: BookInvoiceDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute<BookInvoiceCommand, Versioned<InvoiceView>>(
      new BookInvoiceCommand(caller, invoiceId, optional(body)?.date, ifMatch, commandMetadata(this.clock)),
    );
    return this.answer(reply, result);
  }

  @Post(':invoiceId/settlements')
  @HttpCode(201)
  @ApiOperation({ summary: 'Add a settlement to a booked invoice', description: 'Moves settlementStatus and totalDue.' })
  @ApiParam(INVOICE_ID)
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: 201, description: 'The invoice with the settlement.', type: InvoiceDetailDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such invoice in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('The invoice is a draft (invoice-not-booked), stale If-Match') })
  async addSettlement(
    @Caller() caller: CallerContext,
    @Param('invoiceId', new ResourceIdPipe('Invoice')) invoiceId: string,
    @Body() body: AddSettlementDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute<AddSettlementCommand, Versioned<InvoiceView>>(
      new AddSettlementCommand(caller, invoiceId, body, ifMatch, commandMetadata(this.clock)),
    );
    return this.answer(reply, result);
  }

  private answer(reply: FastifyReply, { view, version }: Versioned<InvoiceView>): InvoiceView {
    reply.header('etag', etagFor(version));
    return view;
  }
}

/** Bodies that may be absent: the parameter keeps the DTO type (so it is validated) but may be undefined at run time. */
function optional<Body>(body: Body): Body | undefined {
  return body ?? undefined;
}
