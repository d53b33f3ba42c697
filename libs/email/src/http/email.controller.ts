import { Body, Controller, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CommandPath } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, oneOf, parseLimit, problemResponse, readQuery, ResourceIdPipe } from '@billing/platform';
import { isUuid, ValidationError } from '@billing/shared-kernel';
import { EmailSettings, emailSettingsEvolver } from '../domain';
import { EMAIL_STATUSES, EmailDeliveriesReadModel } from '../read-model/email-deliveries.read-model';
import { RequestInvoiceEmailCommand } from '../send-invoice/request-invoice-email.command';
import { emailSettingsStream } from '../streams';
import { UpdateEmailSettingsCommand } from '../update-settings/update-email-settings.command';
import { EmailDeliveryListResponse, EmailSettingsDto, SendInvoiceBody, SendInvoiceResponse } from './email.dto';

const INVOICE_ID_PIPE = new ResourceIdPipe('Invoice');
const INVALID_QUERY = { status: 422, ...problemResponse('Invalid, repeated or unknown query parameter (pointer /query/<name>)') };

/** E-mail: the environment's settings, the deliveries, and sending an invoice again. */
@ApiTags('E-mail')
@Controller()
export class EmailController {
  constructor(
    private readonly commands: CommandBus,
    private readonly path: CommandPath,
    private readonly deliveries: EmailDeliveriesReadModel,
    private readonly clock: Clock,
  ) {}

  @Get('email-settings')
  @ApiOperation({ summary: "Get the environment's e-mail settings" })
  @ApiResponse({ status: 200, description: 'The settings (defaults until changed)', type: EmailSettingsDto })
  async settings(@Caller() caller: CallerContext): Promise<EmailSettingsView> {
    return view((await this.path.load(emailSettingsStream(caller.environmentId), emailSettingsEvolver)).state);
  }

  @Put('email-settings')
  @HttpCode(200)
  @ApiOperation({ summary: "Replace the environment's e-mail settings", description: 'They apply to events recorded afterwards.' })
  @ApiBody({ type: EmailSettingsDto })
  @ApiResponse({ status: 200, description: 'The settings', type: EmailSettingsDto })
  @ApiResponse({ status: 422, ...problemResponse('A switch missing or not a boolean, replyTo or bcc not an e-mail address, or another property') })
  async updateSettings(@Caller() caller: CallerContext, @Body() body: unknown): Promise<EmailSettingsView> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'must be an object of e-mail settings');
    const { state } = await this.commands.execute(
      new UpdateEmailSettingsCommand(caller.environmentId, body as Record<string, unknown>, commandContext(caller, this.clock)),
    );
    return view(state);
  }

  @Post('invoices/:invoiceId/send')
  @HttpCode(202)
  @ApiOperation({
    summary: "Send a booked invoice's e-mail (again) now",
    description:
      "Queues a new delivery with the recorded PDF, whatever the settings, to `to` or the customer record's e-mail (none: nothing is queued; GET /emails shows what was).",
  })
  @ApiParam({ name: 'invoiceId', format: 'uuid' })
  @ApiBody({ type: SendInvoiceBody, required: false })
  @ApiResponse({ status: 202, description: 'Accepted: the delivery is queued', type: SendInvoiceResponse })
  @ApiResponse({ status: 404, ...problemResponse('No such invoice in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('The invoice is a draft (invoice-not-booked)') })
  @ApiResponse({ status: 422, ...problemResponse('`to` is not an e-mail address, or another property') })
  async send(@Caller() caller: CallerContext, @Param('invoiceId', INVOICE_ID_PIPE) invoiceId: string, @Body() body: unknown): Promise<SendInvoiceResponse> {
    const input = body ?? {};
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw ValidationError.at('', 'must be an object {to?}');
    const unknown = Object.keys(input).filter((key) => key !== 'to');
    if (unknown.length > 0) throw ValidationError.at(`/${unknown[0]}`, 'is not a known property');
    const to = (input as { to?: unknown }).to;
    await this.commands.execute(new RequestInvoiceEmailCommand(caller.environmentId, invoiceId, to, commandContext(caller, this.clock)));
    return { invoiceId, to: typeof to === 'string' ? to : null };
  }

  @Get('emails')
  @ApiOperation({ summary: "List the environment's e-mail deliveries, newest first" })
  @ApiQuery({ name: 'invoiceId', required: false, schema: { type: 'string', format: 'uuid' } })
  @ApiQuery({ name: 'status', required: false, schema: { type: 'string', enum: [...EMAIL_STATUSES] } })
  @ApiQuery({
    name: 'limit',
    required: false,
    description: 'Page size, 1 to 100 (default 20).',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  })
  @ApiQuery({ name: 'pageToken', required: false, description: 'The `nextPageToken` of the previous page.', schema: { type: 'string' } })
  @ApiResponse({ status: 200, type: EmailDeliveryListResponse })
  @ApiResponse(INVALID_QUERY)
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, ['invoiceId', 'status', 'limit', 'pageToken'] as const);
    if (q.invoiceId !== undefined && !isUuid(q.invoiceId)) throw ValidationError.at('/query/invoiceId', 'must be a uuid');
    const status = oneOf('status', q.status, EMAIL_STATUSES);
    return this.deliveries.list(caller.environmentId, { invoiceId: q.invoiceId, status }, parseLimit(q.limit), q.pageToken);
  }
}

type EmailSettingsView = Omit<EmailSettings, 'updatedAt'>;

function view({ updatedAt: _updatedAt, ...settings }: EmailSettings): EmailSettingsView {
  return settings;
}
