import { Body, Controller, Delete, Param, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, CallerContext, Clock, commandContext, IfMatch, ResourceIdPipe, Versioned } from '@billing/platform';
import { UpcomingInvoices } from '../billing/upcoming-invoice';
import { ChangeItemsCommand } from '../change-items/change-items.command';
import { ChangeItemsDto, changeItemsInput } from '../change-items/change-items.dto';
import { DropChangeCommand } from '../drop-change/drop-change.command';
import { ChangeView, SubscriptionView, toChangeView, toSubscriptionView } from '../subscription-view';
import { ChangePreviewView } from '../upcoming-invoice-view';
import { SUBSCRIPTION, SUBSCRIPTION_HEADERS, SUBSCRIPTION_ID_PIPE as ID_PIPE } from './subscription-docs';
import { SubscriptionChangeDto } from './subscription.dto';
import { ChangePreviewDto } from './upcoming-invoice.dto';

const INVALID_CHANGE =
  'Every invalid member at its pointer: no items, an unknown item id (/items/{i}/id), an item named twice, a change that changes nothing, delete with priceId or quantity, ' +
  'a usage-based (event_based) item changed or deleted (/items/{i}/id: usage items do not change), ' +
  'an unknown, archived, one-time, usage-based (event_based) or product-less price or one without pricing in the subscription’s currency (/items/{i}/priceId: ' +
  'a change neither adds a usage-based price nor puts one on an item), a price that bills unlike the item it replaces, ' +
  'a quantity ≤ 0 or with more than 4 decimals, no recurring item left or more than 50, effective not now/period_end/a date after today or after the subscription’s last day, ' +
  'an unknown prorationBehavior or property, a coupon that cannot be redeemed (/discounts/{i})';

/** Changing a subscription's items (README: Changing items): the change, its preview, and dropping a scheduled one. */
@ApiTags('subscriptions')
@Controller('subscriptions')
export class ChangesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly upcoming: UpcomingInvoices,
    private readonly clock: Clock,
  ) {}

  @Post(':subscriptionId/changes')
  @SUBSCRIPTION.write({
    summary: 'Change a subscription’s items',
    description:
      'Add an item (no id), change an item’s price or quantity (id + new values), delete one (id + delete: true). effective now: 200 with the subscription, ' +
      'the rest of the current period prorated by days per prorationBehavior; period_end or a date: 202 with the scheduled change (pendingChanges), applied by ' +
      'the billing engine at the start of that day, before the billing due then. README "Changing items".',
    body: ChangeItemsDto,
    answer: 'Changed now: the subscription',
    conflict:
      'The subscription has ended (subscription-ended), is paused (subscription-paused), a change is scheduled already (subscription-change-pending), ' +
      'billing due before now is still to be booked or was booked past the request’s time while it ran (subscription-billing-pending; send it again), a coupon is exhausted or archived, or If-Match is stale',
    invalid: INVALID_CHANGE,
  })
  @ApiResponse({
    status: 202,
    description: 'Scheduled: the change, until it applies in pendingChanges',
    type: SubscriptionChangeDto,
    headers: SUBSCRIPTION_HEADERS,
  })
  async change(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Body() body: ChangeItemsDto,
    @IfMatch() expectedVersion: number | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Versioned<SubscriptionView | ChangeView>> {
    const input = changeItemsInput(body);
    const { state, version } = await this.commands.execute(
      new ChangeItemsCommand(caller.environmentId, subscriptionId, input, commandContext(caller, this.clock), expectedVersion),
    );
    // Only one change can wait at a time: a scheduled answer is that one.
    const scheduled = input.effective === 'now' ? undefined : state.pendingChanges?.[0];
    if (scheduled === undefined) return new Versioned(toSubscriptionView(state, this.clock.now()), version);
    reply.status(202);
    return new Versioned(toChangeView(scheduled), version);
  }

  @Post(':subscriptionId/changes/preview')
  @SUBSCRIPTION.read({
    summary: 'Preview a change of items',
    description:
      'The same body as POST …/changes (and the same errors), nothing written: immediateInvoice (always_invoice effective now: the invoice of the proration lines ' +
      'booked at once, else null) and upcomingInvoice (the next invoice the engine books after the change), composed as the engine composes them. ' +
      'discounts in the body are not redeemed by a preview and do not show in it. README "Changing items".',
    body: ChangeItemsDto,
    answer: 'What the change would bill',
    type: ChangePreviewDto,
    conflict:
      'Ended (subscription-ended), paused (subscription-paused), a change is scheduled already (subscription-change-pending), billing due before now still to be booked or booked past the request’s time (subscription-billing-pending)',
    invalid: INVALID_CHANGE,
  })
  preview(@Caller() caller: CallerContext, @Param('subscriptionId', ID_PIPE) subscriptionId: string, @Body() body: ChangeItemsDto): Promise<ChangePreviewView> {
    return this.upcoming.previewChange(caller.environmentId, subscriptionId, changeItemsInput(body), this.clock.now());
  }

  @Delete(':subscriptionId/changes/:changeId')
  @SUBSCRIPTION.write({
    summary: 'Drop a scheduled change',
    description: 'The change will not apply; pendingChanges no longer holds it.',
    params: [{ name: 'changeId', format: 'uuid', description: 'the id of one of the subscription’s pendingChanges' }],
    answer: 'The subscription without the change',
    notFound: 'No such subscription in this environment, or no such pending change on it (unknown, applied or dropped)',
    conflict: 'The subscription has ended (subscription-ended), or If-Match is stale',
    invalid: 'A malformed If-Match (/headers/if-match)',
  })
  async drop(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Param('changeId', new ResourceIdPipe('change')) changeId: string,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    const { state, version } = await this.commands.execute(
      new DropChangeCommand(caller.environmentId, subscriptionId, changeId, commandContext(caller, this.clock), expectedVersion),
    );
    return new Versioned(toSubscriptionView(state, this.clock.now()), version);
  }
}
