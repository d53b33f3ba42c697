import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '@billing/shared-kernel';
import {
  ApiNoInput,
  assertNoInput,
  Caller,
  CallerContext,
  Clock,
  commandContext,
  parseLimit,
  problemResponse,
  readQuery,
  ResourceIdPipe,
} from '@billing/platform';
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
const INVALID_QUERY = { status: 422, ...problemResponse('Invalid, repeated or unknown query parameter (pointer /query/<name>)') };
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
  @HttpCode(200)
  @ApiOperation({
    summary: 'Subscribe a notification URL to all webhook events',
    description:
      'Idempotent: subscribing a URL that is already subscribed returns the same id and signature key (and updates the payload version if X-version differs). A disabled or deleted subscription starts again with a new key.',
  })
  @ApiHeader({
    name: 'X-version',
    required: false,
    description: `Payload version (YYYY-MM) for this subscription's notifications. Supported: ${SUPPORTED_VERSIONS.join(', ')}. Missing: the newest.`,
    schema: { type: 'string', example: '2022-03' },
  })
  @ApiBody({ type: SubscribeWebhookBody })
  @ApiResponse({ status: 200, type: WebhookSubscriptionResponse, description: 'The subscription with its signature key' })
  @ApiResponse({
    status: 422,
    ...problemResponse('Invalid URL (/url: invalid-url, insecure-url, forbidden-address) or unknown X-version (/headers/x-version)'),
  })
  @ApiResponse({ status: 409, ...problemResponse('A concurrent change to the same subscription; retry') })
  subscribe(
    @Caller() caller: CallerContext,
    @Body() body: SubscribeWebhookBody,
    @Headers('x-version') version: string | undefined,
  ): Promise<WebhookSubscriptionWithKey> {
    return this.commands.execute(new SubscribeWebhookCommand(caller, body.url, version, commandContext(caller, this.clock)));
  }

  @Get()
  @ApiOperation({ summary: 'List the webhook subscriptions of the environment (without keys)' })
  @ApiQuery(LIMIT_QUERY)
  @ApiQuery(PAGE_QUERY)
  @ApiResponse({ status: 200, type: WebhookListResponse })
  @ApiResponse(INVALID_QUERY)
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, LIST_QUERY);
    return this.readModel.listSubscriptions(caller.environmentId, parseLimit(q.limit), q.pageToken);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook subscription', description: 'Queued deliveries are cancelled. Deleting twice is not an error.' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ApiResponse({ status: 404, ...problemResponse('No such subscription in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('A concurrent change to the same subscription; retry') })
  async unsubscribe(@Caller() caller: CallerContext, @Param('id', WEBHOOK_ID) id: string): Promise<void> {
    await this.commands.execute(new UnsubscribeWebhookCommand(caller, id, commandContext(caller, this.clock)));
  }

  @ApiNoInput()
  @Put(':id/rotate-key')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Replace the signature key',
    description: 'Immediate: every notification attempt from now on, retries included, is signed with the new key only.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiResponse({ status: 200, type: WebhookSubscriptionResponse, description: 'The subscription with its new key' })
  @ApiResponse({ status: 404, ...problemResponse('No such subscription in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('The subscription is disabled or deleted (webhook-not-active), or changed concurrently') })
  rotateKey(@Caller() caller: CallerContext, @Param('id', WEBHOOK_ID) id: string, @Body() body: unknown): Promise<WebhookSubscriptionWithKey> {
    assertNoInput(body);
    return this.commands.execute(new RotateWebhookKeyCommand(caller, id, commandContext(caller, this.clock)));
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'List the deliveries of a subscription with their attempts, newest first' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiQuery(LIMIT_QUERY)
  @ApiQuery(PAGE_QUERY)
  @ApiResponse({ status: 200, type: DeliveryListResponse })
  @ApiResponse({ status: 404, ...problemResponse('No such subscription in this environment') })
  @ApiResponse(INVALID_QUERY)
  async deliveries(@Caller() caller: CallerContext, @Param('id', WEBHOOK_ID) id: string, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, LIST_QUERY);
    const pageSize = parseLimit(q.limit);
    if (!(await this.readModel.findSubscription(caller.environmentId, id))) throw new NotFoundError('webhook', id);
    return this.readModel.listDeliveries(caller.environmentId, id, pageSize, q.pageToken);
  }

  @ApiNoInput()
  @Post('deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a notification again',
    description: 'The delivery becomes pending and is sent at once, even after the 72-hour retry window (once). A new attempt is recorded.',
  })
  @ApiParam({ name: 'deliveryId', format: 'uuid' })
  @ApiResponse({ status: 202, type: DeliveryResponse, description: 'Accepted: the delivery is pending' })
  @ApiResponse({ status: 404, ...problemResponse('No such delivery in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('The subscription is disabled or deleted (webhook-not-active)') })
  async redeliver(@Caller() caller: CallerContext, @Param('deliveryId', DELIVERY_ID) deliveryId: string, @Body() body: unknown) {
    assertNoInput(body);
    await this.commands.execute(new RedeliverNotificationCommand(caller, deliveryId, commandContext(caller, this.clock)));
    return this.readModel.findDelivery(caller.environmentId, deliveryId);
  }
}
