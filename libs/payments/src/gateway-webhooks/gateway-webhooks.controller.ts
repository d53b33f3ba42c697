import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiProperty, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { problemResponse, Public } from '@billing/platform';
import { StripeEventReceipt, StripeEvents } from './stripe-events';

class GatewayEventReceiptDto {
  @ApiProperty({ enum: [true] }) received!: true;
  @ApiProperty({ description: 'true when the event was handled before (a redelivery): nothing was done again' }) duplicate!: boolean;
}

/**
 * Events payment gateways push. No login: the gateway's signature over the
 * raw body (kept unparsed for this path by the edge) is the proof, checked
 * against the environment's webhook secret.
 */
@ApiTags('gateway webhooks')
@Public()
@Controller('gateway-webhooks')
export class GatewayWebhooksController {
  constructor(private readonly stripe: StripeEvents) {}

  @Post('stripe/:environmentId')
  @HttpCode(200)
  // Public: no bearer token; the x-environment header the document adds everywhere is not read here.
  @ApiSecurity({})
  @ApiOperation({
    summary: "Stripe's events for an environment (the webhook endpoint to set in the Stripe dashboard)",
    description:
      'Verified with the Stripe-Signature header against the webhookSecret the environment enabled provider stripe with (5 minutes tolerance); ' +
      'handles payment_intent.succeeded, payment_intent.payment_failed, payment_intent.processing, payment_intent.requires_action, charge.refunded, ' +
      'refund.updated, charge.dispute.created and charge.dispute.closed (others are acknowledged and ignored). Idempotent by the event id.',
  })
  @ApiParam({ name: 'environmentId', format: 'uuid' })
  @ApiHeader({ name: 'stripe-signature', required: true, description: "Stripe's signature of the body (t=…,v1=…)" })
  @ApiBody({ schema: { type: 'object', description: 'A Stripe Event object, exactly as Stripe sent it' } })
  @ApiResponse({ status: 200, description: 'Received (handled now, or before)', type: GatewayEventReceiptDto })
  @ApiResponse({
    status: 400,
    ...problemResponse(
      'invalid-gateway-event: not signed with the environment’s webhook secret, too old, or the environment has no Stripe provider; ' +
        'or signed but not an event (id or type not 1–255 characters, no data.object, U+0000 or an unpaired surrogate anywhere): `errors` points at it',
    ),
  })
  receive(
    @Param('environmentId') environmentId: string,
    @Headers('stripe-signature') signature: string | undefined,
    @Body() body: unknown,
  ): Promise<StripeEventReceipt> {
    return this.stripe.receive(environmentId, body, signature);
  }
}
