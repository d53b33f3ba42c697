import { Body, Controller, Delete, Get, Headers, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '@billing/shared-kernel';
import { assertNoInput, Caller, CallerContext, Clock, commandContext, parseLimit, readQuery, ResourceIdPipe, resourceDocs } from '@billing/platform';
import { SUPPORTED_VERSIONS } from '../domain';
import { DeliveryListResponse, DeliveryResponse } from '../list-deliveries/list-deliveries.dto';
import { WebhookListResponse } from '../list-webhooks/list-webhooks.dto';
import { WebhooksReadModel } from '../read-model/webhooks-read-model';
import { RedeliverNotificationCommand } from '../redeliver/redeliver.command';
import { RotateWebhookKeyCommand } from '../rotate-key/rotate-webhook-key.command';
import { SubscribeWebhookCommand, WebhookSubscriptionWithKey } from '../subscribe/subscribe-webhook.command';
import { SubscribeWebhookBody, WebhookSubscriptionResponse } from '../subscribe/subscribe-webhook.dto';
import { UnsubscribeWebhookCommand } from '../unsubscribe/unsubscribe-webhook.command';

const LIMIT_QUERY = {
  name: 'limit',
  required: false,
  description: 'Page size, 1 to 100 (default 20).',
  schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
};
const PAGE_QUERY = { name: 'pageToken', required: false, description: 'The `nextPageToken` of the previous page.', schema: { type: 'string' } };
const LIST_QUERY = ['limit', 'pageToken'] as const;
const INVALID_QUERY = 'Invalid, repeated or unknown query parameter (pointer /query/<name>)';
const CONCURRENT_CHANGE = 'A concurrent change to the same subscription; retry';
const NO_SUBSCRIPTION = 'No such subscription in this environment';
const WEBHOOKS = resourceDocs({ type: WebhookListResponse });
const WEBHOOK = resourceDocs({ type: WebhookSubscriptionResponse, id: { name: 'id', format: 'uuid' }, notFound: NO_SUBSCRIPTION });
const DELIVERY = resourceDocs({ type: DeliveryResponse, id: { name: 'deliveryId', format: 'uuid' }, notFound: 'No such delivery in this environment' });
/** Path ids are uuids; anything else names no resource: 404 like an unknown id. */
const WEBHOOK_ID = new ResourceIdPipe('webhook');
const DELIVERY_ID = new ResourceIdPipe('webhook delivery');

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: WebhooksReadModel,
    private readonly clock: Clock,
  ) {}

  @Put('subscribe')
  @WEBHOOK.create({
    status: 200,
    summary: 'Subscribe a notification URL to all webhook events',
    description:
      'Idempotent: subscribing a URL that is already subscribed returns the same id and signature key (and updates the payload version if X-version differs). A disabled or deleted subscription starts again with a new key.',
    body: SubscribeWebhookBody,
    answer: 'The subscription with its signature key',
    conflict: CONCURRENT_CHANGE,
    invalid: 'Invalid URL (/url: invalid-url, insecure-url, forbidden-address) or unknown X-version (/headers/x-version)',
  })
  @ApiHeader({
    name: 'X-version',
    required: false,
    description: `Payload version (YYYY-MM) for this subscription's notifications. Supported: ${SUPPORTED_VERSIONS.join(', ')}. Missing: the newest.`,
    schema: { type: 'string', example: '2022-03' },
  })
  subscribe(
    @Caller() caller: CallerContext,
    @Body() body: SubscribeWebhookBody,
    @Headers('x-version') version: string | undefined,
  ): Promise<WebhookSubscriptionWithKey> {
    return this.commands.execute(new SubscribeWebhookCommand(caller, body.url, version, commandContext(caller, this.clock)));
  }

  @Get()
  @WEBHOOKS.read({ summary: 'List the webhook subscriptions of the environment (without keys)', queries: [LIMIT_QUERY, PAGE_QUERY], invalid: INVALID_QUERY })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, LIST_QUERY);
    return this.readModel.listSubscriptions(caller.environmentId, parseLimit(q.limit), q.pageToken);
  }

  @Delete(':id')
  @WEBHOOK.write({
    status: 204,
    summary: 'Delete a webhook subscription',
    description: 'Queued deliveries are cancelled. Deleting twice is not an error.',
    answer: 'Deleted',
    type: null,
    conflict: CONCURRENT_CHANGE,
  })
  async unsubscribe(@Caller() caller: CallerContext, @Param('id', WEBHOOK_ID) id: string): Promise<void> {
    await this.commands.execute(new UnsubscribeWebhookCommand(caller, id, commandContext(caller, this.clock)));
  }

  @Put(':id/rotate-key')
  @WEBHOOK.action({
    summary: 'Replace the signature key',
    description: 'Immediate: every notification attempt from now on, retries included, is signed with the new key only.',
    answer: 'The subscription with its new key',
    conflict: 'The subscription is disabled or deleted (webhook-not-active), or changed concurrently',
    invalid: undefined,
  })
  rotateKey(@Caller() caller: CallerContext, @Param('id', WEBHOOK_ID) id: string, @Body() body: unknown): Promise<WebhookSubscriptionWithKey> {
    assertNoInput(body);
    return this.commands.execute(new RotateWebhookKeyCommand(caller, id, commandContext(caller, this.clock)));
  }

  @Get(':id/deliveries')
  @WEBHOOK.read({
    summary: 'List the deliveries of a subscription with their attempts, newest first',
    queries: [LIMIT_QUERY, PAGE_QUERY],
    type: DeliveryListResponse,
    invalid: INVALID_QUERY,
  })
  async deliveries(@Caller() caller: CallerContext, @Param('id', WEBHOOK_ID) id: string, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, LIST_QUERY);
    const pageSize = parseLimit(q.limit);
    if (!(await this.readModel.findSubscription(caller.environmentId, id))) throw new NotFoundError('webhook', id);
    return this.readModel.listDeliveries(caller.environmentId, id, pageSize, q.pageToken);
  }

  @Post('deliveries/:deliveryId/redeliver')
  @DELIVERY.action({
    status: 202,
    summary: 'Send a notification again',
    description: 'The delivery becomes pending and is sent at once, even after the 72-hour retry window (once). A new attempt is recorded.',
    answer: 'Accepted: the delivery is pending',
    conflict: 'The subscription is disabled or deleted (webhook-not-active)',
    invalid: undefined,
  })
  async redeliver(@Caller() caller: CallerContext, @Param('deliveryId', DELIVERY_ID) deliveryId: string, @Body() body: unknown) {
    assertNoInput(body);
    await this.commands.execute(new RedeliverNotificationCommand(caller, deliveryId, commandContext(caller, this.clock)));
    return this.readModel.findDelivery(caller.environmentId, deliveryId);
  }
}
