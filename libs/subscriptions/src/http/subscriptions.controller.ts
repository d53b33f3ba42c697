import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Written } from '@billing/event-store';
import {
  assertNoInput,
  Caller,
  CallerContext,
  Clock,
  commandContext,
  IfMatch,
  isUuid,
  oneOf,
  Page,
  parseLimit,
  readQuery,
  ResourceIdPipe,
  Versioned,
} from '@billing/platform';
import { NotFoundError, ValidationError } from '@billing/shared-kernel';
import { CancelSubscriptionCommand } from '../cancel-subscription/cancel-subscription.command';
import { cancelOptions, CancelSubscriptionDto } from '../cancel-subscription/cancel-subscription.dto';
import { CreateSubscriptionCommand } from '../create-subscription/create-subscription.command';
import { EndDiscountCommand } from '../end-discount/end-discount.command';
import { CreateSubscriptionDto, createSubscriptionInput } from '../create-subscription/create-subscription.dto';
import { Subscription } from '../domain';
import { ReactivateSubscriptionCommand } from '../reactivate-subscription/reactivate-subscription.command';
import { EndTrialCommand } from '../end-trial/end-trial.command';
import { PauseSubscriptionCommand } from '../pause-subscription/pause-subscription.command';
import { PauseSubscriptionDto } from '../pause-subscription/pause-subscription.dto';
import { ResumeSubscriptionCommand } from '../resume-subscription/resume-subscription.command';
import { SubscriptionsReadModel } from '../read-model/subscriptions.read-model';
import { SubscriptionView, toSubscriptionView } from '../subscription-view';
import { SubscriptionPageDto } from './subscription.dto';
import { SUBSCRIPTION, SUBSCRIPTION_ID_PIPE as ID_PIPE } from './subscription-docs';

const DISCOUNT_ID_PIPE = new ResourceIdPipe('discount');
const STATUSES = ['trialing', 'active', 'paused', 'cancelled', 'ended'] as const;

/** Writes go through the command bus; every answer renders the subscription at the environment's now. */
@ApiTags('subscriptions')
@Controller('subscriptions')
export class SubscriptionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: SubscriptionsReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @SUBSCRIPTION.create({
    summary: 'Create a subscription',
    description: 'Its items are billed by the billing engine at each billAt (README: Subscriptions).',
    body: CreateSubscriptionDto,
    answer: 'Created',
    conflict: 'The handle is taken (subscription-handle-taken)',
    invalid:
      'Invalid body; a price that is unknown, archived, usage-based (event_based), without a product or without pricing in the currency; an unknown tax code',
  })
  async create(@Caller() caller: CallerContext, @Body() body: CreateSubscriptionDto): Promise<Versioned<SubscriptionView>> {
    const written = await this.commands.execute(
      new CreateSubscriptionCommand(caller.environmentId, createSubscriptionInput(body), commandContext(caller, this.clock)),
    );
    return this.answer(written, `/subscriptions/${written.id}`);
  }

  @Get()
  @SUBSCRIPTION.list({
    summary: 'List subscriptions',
    description: 'Newest first (createdAt, then id, descending), keyset paged with an opaque pageToken.',
    queries: [
      {
        name: 'status',
        required: false,
        enum: STATUSES,
        description: 'the recorded status (an end not yet recorded by the billing engine counts from its recording)',
      },
      { name: 'customerId', required: false, schema: { type: 'string', format: 'uuid' } },
    ],
    answer: 'A page of subscriptions',
    type: SubscriptionPageDto,
  })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<SubscriptionView>> {
    const q = readQuery(query, ['limit', 'pageToken', 'status', 'customerId']);
    if (q.customerId !== undefined && !isUuid(q.customerId)) throw ValidationError.at('/query/customerId', 'must be a uuid');
    const filter = { status: oneOf('status', q.status, STATUSES), customerId: q.customerId };
    return this.readModel.list(caller.environmentId, filter, parseLimit(q.limit), this.clock.now(), q.pageToken);
  }

  @Get(':subscriptionId')
  @SUBSCRIPTION.read({ summary: 'Get a subscription', answer: 'The subscription' })
  async get(@Caller() caller: CallerContext, @Param('subscriptionId', ID_PIPE) subscriptionId: string): Promise<Versioned<SubscriptionView>> {
    const found = await this.readModel.find(caller.environmentId, subscriptionId);
    if (!found) throw new NotFoundError('subscription', subscriptionId);
    return this.answer({ id: subscriptionId, version: found.version, state: found.subscription });
  }

  @Put(':subscriptionId/cancel')
  @SUBSCRIPTION.write({
    status: 202,
    summary: 'Cancel a subscription',
    description:
      'Body {} (or none): 202 with the subscription, status cancelled, cancelAt the end of its current billing period (the latest current-period end among its recurring items; ' +
      'within a trial: the trial’s last day); the final arrears period is billed pro rata, then the subscription ends. Cancelling a cancelled subscription answers the same. ' +
      '{at: "now", prorate}: service ends today (cancelAt today); a final invoice is booked at once with the arrears and usage up to today and, with prorate, ' +
      'a credit line for the unused advance-billed days (README: Cancel now).',
    body: { type: CancelSubscriptionDto, required: false },
    answer: 'Cancelled (ends at cancelAt)',
    conflict:
      'The subscription has ended (subscription-ended), billing due by now is still to be booked by the engine or was booked past the request’s time while it ran ' +
      '(subscription-billing-pending, at: now; send it again), or If-Match is stale',
    invalid: 'An unknown property, an unknown `at`, a non-boolean prorate, or prorate without at: now',
  })
  async cancel(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Body() body: CancelSubscriptionDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    const command = new CancelSubscriptionCommand(
      caller.environmentId,
      subscriptionId,
      commandContext(caller, this.clock),
      expectedVersion,
      cancelOptions(body),
    );
    return this.answer(await this.commands.execute(command));
  }

  @Put(':subscriptionId/reactivate')
  @SUBSCRIPTION.action({
    summary: 'Undo a cancellation',
    description: 'Body {} (or none). Only before cancelAt has passed.',
    answer: 'Active again',
    conflict: 'Not cancelled (subscription-not-cancelled), ended (subscription-ended), or If-Match is stale',
    invalid: 'A body with any property',
  })
  async reactivate(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    return this.act(ReactivateSubscriptionCommand, caller, subscriptionId, body, expectedVersion);
  }

  @Put(':subscriptionId/end-trial')
  @SUBSCRIPTION.action({
    summary: 'End a trial now',
    description:
      'Body {} (or none). The trial ends now: today (in the subscription’s time zone) becomes the first day billed and the billing anchor; ' +
      'the billing engine bills the first advance charges at once (README: Trials).',
    answer: 'Active, its trial ended',
    conflict: 'No running trial (subscription-not-trialing), ended (subscription-ended), or If-Match is stale',
    invalid: 'A body with any property',
  })
  async endTrial(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    return this.act(EndTrialCommand, caller, subscriptionId, body, expectedVersion);
  }

  @Put(':subscriptionId/pause')
  @SUBSCRIPTION.write({
    summary: 'Pause a subscription',
    description:
      'Body {} (or none), or {resumeAt: date}. Today (in the subscription’s time zone) is still served; from tomorrow nothing is billed until it resumes — ' +
      'at resumeAt (the billing engine, on the environment’s clock) or by PUT …/resume. The advance-billed days after today are credited pro rata on the ' +
      'next invoice the engine books for it; arrears and usage are billed up to today (README: Pause and resume).',
    body: { type: PauseSubscriptionDto, required: false },
    answer: 'Paused',
    conflict:
      'Paused already (subscription-paused), in its free trial (subscription-trialing), ended or past its last day (subscription-ended), a change is scheduled ' +
      '(subscription-change-pending), billing was booked past the request’s time while it ran (subscription-billing-pending; send it again), or If-Match is stale',
    invalid: 'resumeAt not a date, not after today, or after the last day of service (/resumeAt); an unknown property',
  })
  async pause(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Body() body: PauseSubscriptionDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    const command = new PauseSubscriptionCommand(
      caller.environmentId,
      subscriptionId,
      body?.resumeAt ?? null,
      commandContext(caller, this.clock),
      expectedVersion,
    );
    return this.answer(await this.commands.execute(command));
  }

  @Put(':subscriptionId/resume')
  @SUBSCRIPTION.action({
    summary: 'Resume a paused subscription',
    description:
      'Body {} (or none). Billing goes on from today, on the same anchor: the current period is charged pro rata from today (README: Pause and resume).',
    answer: 'Active again (or cancelled, if it was cancelled while paused)',
    conflict: 'Not paused (subscription-not-paused), ended (subscription-ended), or If-Match is stale',
    invalid: 'A body with any property',
  })
  async resume(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    return this.act(ResumeSubscriptionCommand, caller, subscriptionId, body, expectedVersion);
  }

  @Delete(':subscriptionId/discounts/:discountId')
  @SUBSCRIPTION.write({
    summary: 'End a discount early',
    description:
      'No invoice billed from now on gets the discount; its end becomes today (in the subscription’s time zone). Invoices already billed keep theirs.',
    params: [{ name: 'discountId', format: 'uuid', description: 'the id of one of the subscription’s discounts' }],
    answer: 'The subscription, the discount ended',
    notFound: 'No such subscription in this environment, or no such discount on it',
    conflict: 'The discount has ended already (discount-ended), the subscription has ended (subscription-ended), or If-Match is stale',
    invalid: 'A malformed If-Match (/headers/if-match)',
  })
  async endDiscount(
    @Caller() caller: CallerContext,
    @Param('subscriptionId', ID_PIPE) subscriptionId: string,
    @Param('discountId', DISCOUNT_ID_PIPE) discountId: string,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    return this.answer(
      await this.commands.execute(
        new EndDiscountCommand(caller.environmentId, subscriptionId, discountId, commandContext(caller, this.clock), expectedVersion),
      ),
    );
  }

  /** An action on one subscription: no input but an empty body and If-Match. */
  private async act(
    Command: typeof ReactivateSubscriptionCommand | typeof EndTrialCommand | typeof ResumeSubscriptionCommand,
    caller: CallerContext,
    subscriptionId: string,
    body: unknown,
    expectedVersion: number | undefined,
  ): Promise<Versioned<SubscriptionView>> {
    assertNoInput(body);
    return this.answer(await this.commands.execute(new Command(caller.environmentId, subscriptionId, commandContext(caller, this.clock), expectedVersion)));
  }

  /** The subscription at the environment's now, with its version for the ETag. */
  private answer({ state, version }: Written<Subscription>, location?: string): Versioned<SubscriptionView> {
    return new Versioned(toSubscriptionView(state, this.clock.now()), version, location);
  }
}
