import { Body, Controller, Get, Param, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Written } from '@billing/event-store';
import { assertNoInput, Caller, CallerContext, Clock, commandContext, resourceDocs, Versioned } from '@billing/platform';
import { childPointer, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';
import { DisableProviderCommand } from '../disable-provider/disable-provider.command';
import { KNOWN_PROVIDERS, PaymentProvider } from '../domain';
import { EnableProviderCommand } from '../enable-provider/enable-provider.command';
import { PaymentsReadModel } from '../read-model/payments.read-model';
import { PaymentProviderView, toProviderView } from '../views';
import { EnableProviderDto, PaymentProviderDto, PaymentProviderListDto } from './payment.dto';

const PROVIDERS = resourceDocs({ type: PaymentProviderListDto });
const PROVIDER = resourceDocs({
  type: PaymentProviderDto,
  headers: { etag: { description: 'the version of the provider', schema: { type: 'string', example: '"1"' } } },
  id: { name: 'name', enum: KNOWN_PROVIDERS },
  notFound: 'The provider was never enabled in this environment (or no such provider)',
});

/** Payment providers of the environment. Credentials go in, are encrypted at once, and never come out: only their hint. */
@ApiTags('payment providers')
@Controller('paymentproviders')
export class PaymentProvidersController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: PaymentsReadModel,
    private readonly clock: Clock,
  ) {}

  @Post('enable')
  @PROVIDER.create({
    status: 200,
    summary: 'Enable a payment provider (or rotate its credentials)',
    description:
      'sandbox: credentials {"secretKey": "sk_sandbox_…"}; manual (bank transfers recorded by hand): credentials null; stripe: credentials {"secretKey": "sk_test_…" | "sk_live_…" | "rk_…", "webhookSecret": "whsec_…"} (a live key is refused in an environment whose test clock was advanced). Enabling again replaces the credentials.',
    body: EnableProviderDto,
    answer: 'The provider, enabled',
    invalid: 'Unknown provider (the known ones are listed), credentials that do not fit it, or another property',
  })
  async enable(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<PaymentProviderView>> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ValidationError.at('', 'must be an object {name, credentials}');
    const unknown = Object.keys(body).filter((key) => key !== 'name' && key !== 'credentials');
    if (unknown.length > 0)
      throw new ValidationError(
        'The request is invalid.',
        unknown.map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY })),
      );
    const { name, credentials } = body as { name?: unknown; credentials?: unknown };
    return answer(await this.commands.execute(new EnableProviderCommand(caller.environmentId, name, credentials, commandContext(caller, this.clock))));
  }

  @Get()
  @PROVIDERS.read({ summary: 'List the payment providers of the environment', answer: 'Every provider ever enabled, by name' })
  async list(@Caller() caller: CallerContext): Promise<{ items: PaymentProviderView[] }> {
    return { items: await this.readModel.providers(caller.environmentId) };
  }

  @Put(':name/disable')
  @PROVIDER.action({
    summary: 'Disable a payment provider',
    description: 'Body {} (or none). New payments through it are refused; disabling again answers the same.',
    answer: 'The provider, disabled',
    invalid: 'A body with any property',
  })
  async disable(@Caller() caller: CallerContext, @Param('name') name: string, @Body() body: unknown): Promise<Versioned<PaymentProviderView>> {
    assertNoInput(body);
    return answer(await this.commands.execute(new DisableProviderCommand(caller.environmentId, name, commandContext(caller, this.clock))));
  }
}

function answer({ state, version }: Written<PaymentProvider>): Versioned<PaymentProviderView> {
  return new Versioned(toProviderView(state), version);
}
