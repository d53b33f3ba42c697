import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { CommandPath } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, oneOf, parseLimit, readQuery, ResourceIdPipe, resourceDocs } from '@billing/platform';
import { isUuid, ValidationError } from '@billing/shared-kernel';
import { EmailSettings, emailSettingsEvolver } from '../domain';
import { EMAIL_STATUSES, EmailDeliveriesReadModel } from '../read-model/email-deliveries.read-model';
import { RequestInvoiceEmailCommand } from '../send-invoice/request-invoice-email.command';
import { emailSettingsStream } from '../streams';
import { UpdateEmailSettingsCommand } from '../update-settings/update-email-settings.command';
import { EmailDeliveryListResponse, EmailSettingsDto, SendInvoiceBody, SendInvoiceResponse } from './email.dto';

const INVOICE_ID_PIPE = new ResourceIdPipe('Invoice');
const SETTINGS = resourceDocs({ type: EmailSettingsDto });
const SEND = resourceDocs({ type: SendInvoiceResponse, id: { name: 'invoiceId', format: 'uuid' }, notFound: 'No such invoice in this environment' });
const DELIVERIES = resourceDocs({ type: EmailDeliveryListResponse });

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
  @SETTINGS.read({ summary: "Get the environment's e-mail settings", answer: 'The settings (defaults until changed)' })
  async settings(@Caller() caller: CallerContext): Promise<EmailSettingsView> {
    return view((await this.path.load(emailSettingsStream(caller.environmentId), emailSettingsEvolver)).state);
  }

  @Put('email-settings')
  @SETTINGS.write({
    summary: "Replace the environment's e-mail settings",
    description: 'They apply to events recorded afterwards.',
    body: EmailSettingsDto,
    answer: 'The settings',
    invalid: 'A switch missing or not a boolean, replyTo or bcc not an e-mail address, or another property',
  })
  async updateSettings(@Caller() caller: CallerContext, @Body() body: unknown): Promise<EmailSettingsView> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'must be an object of e-mail settings');
    const { state } = await this.commands.execute(
      new UpdateEmailSettingsCommand(caller.environmentId, body as Record<string, unknown>, commandContext(caller, this.clock)),
    );
    return view(state);
  }

  @Post('invoices/:invoiceId/send')
  @SEND.write({
    status: 202,
    summary: "Send a booked invoice's e-mail (again) now",
    description:
      "Queues a new delivery with the recorded PDF, whatever the settings, to `to` or the customer record's e-mail (none: nothing is queued; GET /emails shows what was).",
    body: { type: SendInvoiceBody, required: false },
    answer: 'Accepted: the delivery is queued',
    conflict: 'The invoice is a draft (invoice-not-booked)',
    invalid: '`to` is not an e-mail address, or another property',
  })
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
  @DELIVERIES.read({
    summary: "List the environment's e-mail deliveries, newest first",
    queries: [
      { name: 'invoiceId', required: false, schema: { type: 'string', format: 'uuid' } },
      { name: 'status', required: false, schema: { type: 'string', enum: [...EMAIL_STATUSES] } },
      { name: 'limit', required: false, description: 'Page size, 1 to 100 (default 20).', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'pageToken', required: false, description: 'The `nextPageToken` of the previous page.', schema: { type: 'string' } },
    ],
    invalid: 'Invalid, repeated or unknown query parameter (pointer /query/<name>)',
  })
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
