import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { Command, CommandBus } from '@nestjs/cqrs';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { NotFoundError, ValidationError } from '@billing/shared-kernel';
import { CommandContext, Written } from '@billing/event-store';
import {
  assertNoInput,
  Caller,
  CallerContext,
  Clock,
  commandContext,
  IfMatch,
  JsonText,
  isUuid,
  oneOf,
  parseLimit,
  readQuery,
  ResourceIdPipe,
  resourceDocs,
  Versioned,
} from '@billing/platform';
import { InvoiceState, InvoiceStatus, InvoiceType, SettlementStatus, taxCodesOf } from '../domain';
import { AddSettlementCommand } from '../add-settlement/add-settlement.command';
import { AddSettlementDto } from '../add-settlement/add-settlement.dto';
import { BookInvoiceCommand } from '../book-invoice/book-invoice.command';
import { BookInvoiceDto } from '../book-invoice/book-invoice.dto';
import { CreateInvoiceCommand } from '../create-invoice/create-invoice.command';
import { CreateInvoiceDto, createInvoiceInput, invoiceDiscounts } from '../create-invoice/create-invoice.dto';
import { DuplicateInvoiceCommand } from '../duplicate-invoice/duplicate-invoice.command';
import { DuplicateInvoiceDto } from '../duplicate-invoice/duplicate-invoice.dto';
import { IssueCreditNoteCommand } from '../issue-credit-note/issue-credit-note.command';
import { IssueCreditNoteDto, issueCreditNoteInput } from '../issue-credit-note/issue-credit-note.dto';
import { UpdateInvoiceCommand } from '../update-invoice/update-invoice.command';
import { UpdateInvoiceDto, updateInvoiceInput } from '../update-invoice/update-invoice.dto';
import { VoidInvoiceCommand } from '../void-invoice/void-invoice.command';
import { MarkInvoiceUncollectibleCommand } from '../mark-invoice-uncollectible/mark-invoice-uncollectible.command';
import { RotateHostedLinkCommand } from '../rotate-hosted-link/rotate-hosted-link.command';
import { InvoiceDetail, InvoiceDetails } from '../hosted-link/invoice-details';
import { renderInvoiceView } from '../read-model/invoice-view';
import { InvoicingReadModel } from '../read-model/invoicing.read-model';
import { TaxRegisterReader } from '../tax-register';
import { InvoiceDetailDto, InvoicePageDto } from './invoice-detail.dto';
import { InvoiceLineInputDto } from './invoice-line-input.dto';

const STATUSES: readonly InvoiceStatus[] = ['draft', 'booked', 'void'];
const TYPES: readonly InvoiceType[] = ['invoice', 'credit_note'];
const SETTLEMENT_STATUSES: readonly SettlementStatus[] = ['settled', 'over_settled', 'under_settled', 'not_settled'];

const ETAG_HEADER = { ETag: { description: 'The invoice version, for If-Match.', schema: { type: 'string', example: '"3"' } } };
const CREATED_HEADERS = { ...ETAG_HEADER, Location: { description: 'The new invoice: /invoices/{invoiceId}.', required: true, schema: { type: 'string' } } };
const LIST_QUERY = ['limit', 'pageToken', 'status', 'type', 'settlementStatus', 'customerId'] as const;
const IF_MATCH = { name: 'if-match', required: false, description: 'An ETag from an earlier response; a stale one is a 409.' };
const INVOICE_ID = { name: 'invoiceId', format: 'uuid', description: 'The invoice id.' };
/** Path ids are uuids; anything else names no invoice: 404 like an unknown id. */
const INVOICE_ID_PIPE = new ResourceIdPipe('Invoice');

const INVALID_INVOICE =
  'Invalid body: unknown property, unknown tax code or currency, too many decimals, discount, more than 500 lines (pointer /items), ' +
  'an unknown priceId (/items/<i>/priceId), a malformed or unusable discount (/discounts/<i>: unknown coupon or code, the same coupon twice, no amountOff or minimumAmount in the currency)';
const REDEMPTION_CONFLICTS =
  'a new discount cannot be redeemed: coupon-exhausted, coupon-expired, coupon-archived, promotion-code-exhausted, promotion-code-expired, promotion-code-archived, promotion-code-restricted (a first-time-only code)';

const INVOICE = resourceDocs({
  type: InvoiceDetailDto,
  headers: ETAG_HEADER,
  id: INVOICE_ID,
  ifMatch: IF_MATCH,
  notFound: 'No such invoice in this environment',
});

@ApiTags('Invoices')
@ApiExtraModels(InvoiceLineInputDto)
@Controller('invoices')
export class InvoicesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: InvoicingReadModel,
    private readonly taxRegister: TaxRegisterReader,
    private readonly clock: Clock,
    private readonly details: InvoiceDetails,
  ) {}

  @Post()
  @INVOICE.create({
    summary: 'Create a draft invoice',
    description: 'Lines name tax codes of the environment; the figures are computed. Read-only fields are refused (422).',
    answer: 'The new draft invoice.',
    headers: CREATED_HEADERS,
    conflict: REDEMPTION_CONFLICTS,
    invalid: INVALID_INVOICE,
  })
  async create(@Caller() caller: CallerContext, @Body() body: CreateInvoiceDto): Promise<Versioned<InvoiceDetail>> {
    const written = await this.commands.execute<CreateInvoiceCommand, Written<InvoiceState>>(
      new CreateInvoiceCommand(caller.environmentId, createInvoiceInput(body), this.context(caller), undefined, invoiceDiscounts(body.discounts)),
    );
    return this.answer(caller, written, `/invoices/${written.id}`);
  }

  @Get()
  @INVOICE.list({
    summary: 'List invoices',
    description:
      'Newest first (createdAt, then id, descending), keyset paged with an opaque pageToken. Filters combine with and. ' +
      'Items are invoices without `items` (lines) and `settlements`; GET /invoices/{invoiceId} has them.',
    queries: [
      { name: 'status', required: false, enum: STATUSES },
      { name: 'type', required: false, enum: TYPES },
      { name: 'settlementStatus', required: false, enum: SETTLEMENT_STATUSES },
      { name: 'customerId', required: false, schema: { type: 'string', format: 'uuid' } },
    ],
    answer: '`{items, nextPageToken}`; nextPageToken is null on the last page.',
    type: InvoicePageDto,
    invalid: 'Invalid query parameter (pointer /query/<name>)',
  })
  async list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, LIST_QUERY);
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
  @INVOICE.read({ summary: 'Get an invoice', answer: 'The invoice.' })
  async get(@Caller() caller: CallerContext, @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string): Promise<Versioned<JsonText>> {
    // The stored view as Postgres prints it, plus the link: the hottest read never parses or re-serializes an invoice.
    const found = await this.readModel.invoice(caller.environmentId, invoiceId);
    if (!found) throw new NotFoundError('Invoice', invoiceId);
    return new Versioned(this.details.ofStored(caller.environmentId, found.resource), found.version);
  }

  @Put(':invoiceId')
  @INVOICE.write({
    summary: 'Update a draft invoice',
    description: '`items` replaces the lines; a line with the id of an existing line keeps it.',
    answer: 'The updated invoice.',
    conflict: `The invoice is booked (invoice-not-draft), If-Match is stale / a concurrent write won (version-conflict), or ${REDEMPTION_CONFLICTS}`,
    invalid: `${INVALID_INVOICE}; a currency change of a draft with amount-off coupons (/currency)`,
  })
  async update(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: UpdateInvoiceDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    const written = await this.commands.execute<UpdateInvoiceCommand, Written<InvoiceState>>(
      new UpdateInvoiceCommand(
        caller.environmentId,
        invoiceId,
        updateInvoiceInput(body),
        this.context(caller),
        expectedVersion,
        body.discounts === undefined ? undefined : invoiceDiscounts(body.discounts),
      ),
    );
    return this.answer(caller, written);
  }

  @Post(':invoiceId/duplicate')
  @INVOICE.write({
    summary: 'Duplicate or credit an invoice',
    description:
      'Creates a new draft from the invoice and answers with the NEW invoice. reverse true (booked invoices only) makes a credit note negating every figure; booking it settles the invoice.',
    body: { type: DuplicateInvoiceDto, required: false },
    answer: 'The new draft invoice or credit note (Location: its URL).',
    headers: CREATED_HEADERS,
    conflict:
      'reverse of a draft (invoice-not-booked), of a credit note (credit-note-cannot-be-reversed) or of a fully credited invoice (credit-exceeds-invoice); stale If-Match',
  })
  async duplicate(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: DuplicateInvoiceDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    const written = await this.commands.execute<DuplicateInvoiceCommand, Written<InvoiceState>>(
      new DuplicateInvoiceCommand(caller.environmentId, invoiceId, optional(body)?.reverse ?? false, this.context(caller), expectedVersion),
    );
    return this.answer(caller, written, `/invoices/${written.id}`);
  }

  @Post(':invoiceId/credit-notes')
  @INVOICE.write({
    status: 201,
    summary: 'Credit a booked invoice with a credit note that says where the money goes',
    description:
      'Creates and books a credit note (type credit_note, the next CN- number) for `lines` or a plain `amount` (tax included), and applies it to the invoice. ' +
      'It first reduces what is still due on the invoice; the rest must be allocated exactly to refundAmount (refunded through the payments of the invoice), ' +
      'creditAmount (credit to the customer) and outOfBandAmount. README, "Credit notes", has the rules.',
    answer: 'The booked credit note with its disposition (creditNote).',
    headers: CREATED_HEADERS,
    conflict: 'The invoice is a draft (invoice-not-booked) or a credit note (credit-note-cannot-be-reversed), stale If-Match (version-conflict)',
    invalid:
      'Both or neither of lines and amount, unknown reason or property, a line credit beyond what is left of it (credit-exceeds-line), beyond what is creditable (credit-exceeds-creditable), ' +
      'refundAmount beyond what was paid (refund-exceeds-paid), amounts that do not add up (credit-note-unallocated)',
  })
  async issueCreditNote(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: IssueCreditNoteDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    const written = await this.commands.execute<IssueCreditNoteCommand, Written<InvoiceState>>(
      new IssueCreditNoteCommand(caller.environmentId, issueCreditNoteInput(invoiceId, body), this.context(caller), expectedVersion),
    );
    return this.answer(caller, written, `/invoices/${written.id}`);
  }

  @Put(':invoiceId/book')
  @INVOICE.write({
    summary: 'Book a draft invoice',
    description:
      "Assigns the next gapless handle of the environment (INV-000001, CN-000001) and freezes the figures at the tax codes' current rates. " +
      'Without a date the draft keeps its own. Booking a credit note applies it to the invoice it credits: a settlement on both, so the credit note is settled.',
    body: { type: BookInvoiceDto, required: false },
    answer: 'The booked invoice.',
    conflict:
      'Already booked (invoice-already-booked), no lines (invoice-has-no-lines), an invoice whose lines add up to a negative total (invoice-total-negative, pointer /items: credit with a credit note instead), a credit note beyond what is still creditable (credit-exceeds-invoice) or not reducing the invoice (credit-note-wrong-sign), stale If-Match',
    invalid: "An invalid date, or one after the draft's due date (pointer /date)",
  })
  async book(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: BookInvoiceDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    const written = await this.commands.execute<BookInvoiceCommand, Written<InvoiceState>>(
      new BookInvoiceCommand(caller.environmentId, invoiceId, optional(body)?.date, this.context(caller), expectedVersion, undefined, true),
    );
    return this.answer(caller, written);
  }

  @Put(':invoiceId/void')
  @INVOICE.action({
    summary: 'Void a booked, unpaid invoice',
    description:
      'Body {} (or none). The invoice becomes `void`: it keeps its number (the sequence stays gapless), shows `totalDue` 0, takes no settlement and is no longer collected (its dunning stops at once). ' +
      'Only an invoice that nothing has settled (no payment, not even one refunded since, and no credit note applied); otherwise credit it. Voiding a void invoice answers it unchanged.',
    answer: 'The void invoice.',
    conflict:
      'Settled wholly or in part (invoice-paid: credit it instead), a payment of it under way or succeeded (invoice-payment-under-way), a draft (invoice-not-booked), a credit note (invoice-is-credit-note), stale If-Match (version-conflict)',
  })
  voidInvoice(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    return this.act(caller, body, new VoidInvoiceCommand(caller.environmentId, invoiceId, this.context(caller), expectedVersion));
  }

  @Put(':invoiceId/mark-uncollectible')
  @INVOICE.action({
    summary: 'Mark an invoice uncollectible',
    description:
      'Body {} (or none). Its collection (dunning) stops; it stays payable, and a settlement that settles it clears `uncollectible`. ' +
      'Only a booked invoice with something due. Marking it again answers it unchanged.',
    answer: 'The invoice, `uncollectible: true`.',
    conflict:
      'Nothing due (invoice-nothing-due), a draft (invoice-not-booked), void (invoice-void), a credit note (invoice-is-credit-note), stale If-Match (version-conflict)',
  })
  markUncollectible(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    return this.act(caller, body, new MarkInvoiceUncollectibleCommand(caller.environmentId, invoiceId, this.context(caller), expectedVersion));
  }

  @Put(':invoiceId/hosted-link/rotate')
  @INVOICE.action({
    summary: "Replace an invoice's hosted page link",
    description:
      'Body {} (or none). The invoice gets a new `hostedInvoiceUrl`; the old link opens only the 404 page from now on. ' +
      'A booked invoice or credit note (void included); a draft has no link.',
    answer: 'The invoice with its new hostedInvoiceUrl.',
    conflict: 'A draft (invoice-not-booked), stale If-Match (version-conflict)',
  })
  rotateHostedLink(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    return this.act(caller, body, new RotateHostedLinkCommand(caller.environmentId, invoiceId, this.context(caller), expectedVersion));
  }

  @Post(':invoiceId/settlements')
  @INVOICE.write({
    status: 201,
    summary: 'Add a settlement to a booked invoice',
    description: 'Moves settlementStatus and totalDue.',
    answer: 'The invoice with the settlement (Location: the invoice, where the settlement is listed; a settlement has no URL of its own).',
    conflict: 'The invoice is a draft (invoice-not-booked) or void (invoice-void), stale If-Match',
  })
  async addSettlement(
    @Caller() caller: CallerContext,
    @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string,
    @Body() body: AddSettlementDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<InvoiceDetail>> {
    const settlement = { invoiceId, date: body.date, amount: body.amount, reference: body.reference, note: body.note };
    const written = await this.commands.execute<AddSettlementCommand, Written<InvoiceState>>(
      new AddSettlementCommand(caller.environmentId, settlement, this.context(caller), expectedVersion),
    );
    return this.answer(caller, written, `/invoices/${written.id}`);
  }

  private context(caller: CallerContext): CommandContext {
    return commandContext(caller, this.clock);
  }

  /** An action on an invoice that takes no input: an empty body (or none), the command, the invoice as it left it. */
  private async act(caller: CallerContext, body: unknown, command: Command<Written<InvoiceState>>): Promise<Versioned<InvoiceDetail>> {
    assertNoInput(body);
    return this.answer(caller, await this.commands.execute(command));
  }

  /**
   * A write's answer: the invoice as its command left it, rendered as the
   * read model stores it (a draft at its codes' current rates). Not read back
   * from the read model: inside an Idempotency-Key's transaction nothing is
   * projected before the answer is stored.
   */
  private async answer(caller: CallerContext, { id, version, state }: Written<InvoiceState>, location?: string): Promise<Versioned<InvoiceDetail>> {
    if (state.status === 'none') throw new NotFoundError('Invoice', id);
    const register = state.status === 'draft' && state.type === 'invoice' ? await this.taxRegister.read(caller.environmentId, taxCodesOf(state)) : undefined;
    // Like a read: a draft made out to a customer record shows the record as it is now.
    const customer = state.status === 'draft' && state.customerId != null ? await this.readModel.currentCustomer(caller.environmentId, state.customerId) : null;
    const view = renderInvoiceView(state, register);
    return new Versioned(this.details.of(caller.environmentId, customer ? { ...view, customer } : view, state.hostedLinkVersion), version, location);
  }
}

/** Bodies that may be absent: the parameter keeps the DTO type (so it is validated) but may be undefined at run time. */
function optional<Body>(body: Body): Body | undefined {
  return body ?? undefined;
}
