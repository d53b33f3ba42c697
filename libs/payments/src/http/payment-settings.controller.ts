import { Body, Controller, Get, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { CommandPath } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, resourceDocs } from '@billing/platform';
import { childPointer, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { AFTER_LAST_FAILURE, PaymentSettings, paymentSettingsEvolver } from '../domain';
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

  @ApiProperty({
    enum: AFTER_LAST_FAILURE,
    required: false,
    example: 'leave_open',
    description:
      'what happens when a collection gives up (its last try failed, or a hard decline): leave_open (the default, also when absent from a PUT) leaves the invoice open and payable; ' +
      "mark_uncollectible marks it uncollectible (still payable); cancel_subscription cancels the invoice's subscription (it ends at the end of its current period). " +
      'A collection keeps the setting in force when it started.',
  })
  afterLastFailure!: string;
}

/** The environment's payment settings: the collection retry schedule and the payment terms of subscription invoices. */
const SETTINGS = resourceDocs({ type: PaymentSettingsDto });

@ApiTags('payment providers')
@Controller('paymentsettings')
export class PaymentSettingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly path: CommandPath,
    private readonly clock: Clock,
  ) {}

  @Get()
  @SETTINGS.read({ summary: "Get the environment's payment settings", answer: 'The settings (defaults until changed)' })
  async get(@Caller() caller: CallerContext): Promise<PaymentSettingsView> {
    return view((await this.path.load(paymentSettingsStream(caller.environmentId), paymentSettingsEvolver)).state);
  }

  @Put()
  @SETTINGS.write({
    summary: "Replace the environment's collection retry schedule, what follows its last failure, and payment terms",
    description: 'The schedule and afterLastFailure apply to collections that start afterwards, the terms to invoices the billing engine makes afterwards.',
    body: PaymentSettingsDto,
    answer: 'The settings',
    invalid:
      'retryDays not 1–10 strictly increasing whole days from 1 to 60 (pointer /retryDays/<i>), paymentTermsDays not 0–365 whole days, an unknown afterLastFailure, or another property',
  })
  async update(@Caller() caller: CallerContext, @Body() body: unknown): Promise<PaymentSettingsView> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw ValidationError.at('', 'must be an object {retryDays, paymentTermsDays?, afterLastFailure?}');
    }
    const unknown = Object.keys(body).filter((key) => !SETTINGS_MEMBERS.includes(key));
    if (unknown.length > 0)
      throw new ValidationError(
        'The request is invalid.',
        unknown.map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY })),
      );
    const { retryDays, paymentTermsDays, afterLastFailure } = body as Record<string, unknown>;
    const { state } = await this.commands.execute(
      new UpdatePaymentSettingsCommand(caller.environmentId, { retryDays, paymentTermsDays, afterLastFailure }, commandContext(caller, this.clock)),
    );
    return view(state);
  }
}

const SETTINGS_MEMBERS: readonly string[] = ['retryDays', 'paymentTermsDays', 'afterLastFailure'];

type PaymentSettingsView = Pick<PaymentSettings, 'retryDays' | 'paymentTermsDays' | 'afterLastFailure'>;

function view({ retryDays, paymentTermsDays, afterLastFailure }: PaymentSettings): PaymentSettingsView {
  return { retryDays, paymentTermsDays, afterLastFailure };
}
