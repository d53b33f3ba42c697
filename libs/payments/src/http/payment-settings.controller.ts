import { Body, Controller, Get, HttpCode, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CommandPath } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, problemResponse } from '@billing/platform';
import { childPointer, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { PaymentSettings, paymentSettingsEvolver } from '../domain';
import { paymentSettingsStream } from '../streams';
import { UpdatePaymentSettingsCommand } from '../update-settings/update-payment-settings.command';

class PaymentSettingsDto {
  @ApiProperty({
    type: 'integer',
    isArray: true,
    example: [1, 3, 5, 7],
    description: 'days after the first failed collection try at which it is tried again (1–10 increasing whole days, ≤ 60)',
  })
  retryDays!: number[];

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 365,
    required: false,
    example: 14,
    description:
      'days from the date of an invoice the billing engine makes to its due date; 0 (the default, also when absent from a PUT): due on the invoice date',
  })
  paymentTermsDays!: number;
}

/** The environment's payment settings: the collection retry schedule and the payment terms of subscription invoices. */
@ApiTags('payment providers')
@Controller('paymentsettings')
export class PaymentSettingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly path: CommandPath,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ summary: "Get the environment's payment settings" })
  @ApiResponse({ status: 200, description: 'The settings (defaults until changed)', type: PaymentSettingsDto })
  async get(@Caller() caller: CallerContext): Promise<PaymentSettingsView> {
    return view((await this.path.load(paymentSettingsStream(caller.environmentId), paymentSettingsEvolver)).state);
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({
    summary: "Replace the environment's collection retry schedule and payment terms",
    description: 'The schedule applies to collections that start afterwards, the terms to invoices the billing engine makes afterwards.',
  })
  @ApiBody({ type: PaymentSettingsDto })
  @ApiResponse({ status: 200, description: 'The settings', type: PaymentSettingsDto })
  @ApiResponse({
    status: 422,
    ...problemResponse(
      'retryDays not 1–10 strictly increasing whole days from 1 to 60 (pointer /retryDays/<i>), paymentTermsDays not 0–365 whole days, or another property',
    ),
  })
  async update(@Caller() caller: CallerContext, @Body() body: unknown): Promise<PaymentSettingsView> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'must be an object {retryDays, paymentTermsDays?}');
    const unknown = Object.keys(body).filter((key) => key !== 'retryDays' && key !== 'paymentTermsDays');
    if (unknown.length > 0)
      throw new ValidationError(
        'The request is invalid.',
        unknown.map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY })),
      );
    const { state } = await this.commands.execute(
      new UpdatePaymentSettingsCommand(
        caller.environmentId,
        (body as { retryDays?: unknown }).retryDays,
        (body as { paymentTermsDays?: unknown }).paymentTermsDays,
        commandContext(caller, this.clock),
      ),
    );
    return view(state);
  }
}

type PaymentSettingsView = Pick<PaymentSettings, 'retryDays' | 'paymentTermsDays'>;

function view({ retryDays, paymentTermsDays }: PaymentSettings): PaymentSettingsView {
  return { retryDays, paymentTermsDays };
}
