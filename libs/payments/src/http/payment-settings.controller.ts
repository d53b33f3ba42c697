import { Body, Controller, Get, HttpCode, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CommandPath } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, pointerToken, problemResponse } from '@billing/platform';
import { UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { PaymentSettings, paymentSettingsEvolver } from '../domain';
import { paymentSettingsStream } from '../streams';
import { UpdatePaymentSettingsCommand } from '../update-settings/update-payment-settings.command';

class PaymentSettingsDto {
  @ApiProperty({ type: 'integer', isArray: true, example: [1, 3, 5, 7], description: 'days after the first failed collection try at which it is tried again (1–10 increasing whole days, ≤ 60)' })
  retryDays!: number[];
}

/** The environment's payment settings: the collection retry schedule. */
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
  async get(@Caller() caller: CallerContext): Promise<{ retryDays: readonly number[] }> {
    return view((await this.path.load(paymentSettingsStream(caller.environmentId), paymentSettingsEvolver)).state);
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({ summary: "Replace the environment's collection retry schedule", description: 'Applies to collections that start afterwards.' })
  @ApiBody({ type: PaymentSettingsDto })
  @ApiResponse({ status: 200, description: 'The settings', type: PaymentSettingsDto })
  @ApiResponse({ status: 422, ...problemResponse('retryDays not 1–10 strictly increasing whole days from 1 to 60 (pointer /retryDays/<i>), or another property') })
  async update(@Caller() caller: CallerContext, @Body() body: unknown): Promise<{ retryDays: readonly number[] }> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'must be an object {retryDays}');
    const unknown = Object.keys(body).filter((key) => key !== 'retryDays');
    if (unknown.length > 0) throw new ValidationError('The request is invalid.', unknown.map((key) => ({ pointer: `/${pointerToken(key)}`, detail: UNKNOWN_PROPERTY })));
    const { state } = await this.commands.execute(
      new UpdatePaymentSettingsCommand(caller.environmentId, (body as { retryDays?: unknown }).retryDays, commandContext(caller, this.clock)),
    );
    return view(state);
  }
}

function view(settings: PaymentSettings): { retryDays: readonly number[] } {
  return { retryDays: settings.retryDays };
}
