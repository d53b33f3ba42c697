import { ApiProperty } from '@nestjs/swagger';

class DatePeriodDto {
  @ApiProperty({ format: 'date' }) start!: string;
  @ApiProperty({ format: 'date', description: 'inclusive' }) end!: string;
}

class TermDto {
  @ApiProperty({ format: 'date' }) start!: string;
  @ApiProperty({ type: String, format: 'date', nullable: true, description: 'inclusive last day of the current term; null: evergreen' }) end!: string | null;
}

class NamedRefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

class SubscriptionItemDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'the next instant the item is billed (midnight in the time zone, in UTC); null: never again',
  })
  billAt!: string | null;
  @ApiProperty({
    type: DatePeriodDto,
    nullable: true,
    description: 'the period holding now (the first if not started; shortened at the final day); null for a one-time price',
  })
  period!: DatePeriodDto | null;
  @ApiProperty({ type: Number, format: 'double', description: 'up to 4 decimals' }) quantity!: number;
  @ApiProperty({ type: NamedRefDto }) product!: NamedRefDto;
  @ApiProperty({ type: NamedRefDto }) price!: NamedRefDto;
  @ApiProperty({ type: String, nullable: true }) taxCode!: string | null;
}

class PaymentMethodHintDto {
  @ApiProperty() provider!: string;
  @ApiProperty({ example: 'ss', description: 'the last characters of the token (at most 4, never more than a quarter of it); the token itself is never shown' })
  tokenHint!: string;
}

class BillingFailureDto {
  @ApiProperty({ format: 'date-time' }) billAt!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({ format: 'date-time' }) retryAt!: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the item whose charge failed and waits alone for its retry (the other items go on billing); null: the billing at billAt as a whole',
  })
  itemId!: string | null;
}

class DiscountAppliesToDto {
  @ApiProperty({ type: [String], format: 'uuid' }) productIds!: string[];
}

class SubscriptionDiscountDto {
  @ApiProperty({ format: 'uuid', description: 'the discount (its redemption): DELETE /subscriptions/{id}/discounts/{discountId} ends it' }) id!: string;
  @ApiProperty({ format: 'uuid' }) couponId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the promotion code it was redeemed through' }) promotionCodeId!: string | null;
  @ApiProperty() name!: string;
  @ApiProperty({ type: Number, format: 'double', nullable: true }) percentOff!: number | null;
  @ApiProperty({ type: 'integer', format: 'int64', nullable: true, description: "minor units of the subscription's currency" }) amountOff!: number | null;
  @ApiProperty({ enum: ['once', 'repeating', 'forever'] }) duration!: string;
  @ApiProperty({ type: 'integer', nullable: true }) durationInMonths!: number | null;
  @ApiProperty({ type: DiscountAppliesToDto, nullable: true, description: 'only lines of these products are discounted' })
  appliesTo!: DiscountAppliesToDto | null;
  @ApiProperty({ format: 'date', description: 'invoices whose period starts on or after it are discounted (the term start)' }) start!: string;
  @ApiProperty({
    type: String,
    format: 'date',
    nullable: true,
    description:
      'the last day an invoice period may start on (repeating: start + months − 1 day; once: the invoice that used it; ended early: that day); null: open-ended',
  })
  end!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when it stopped discounting (used or ended early)' }) endedAt!: string | null;
}

class TrialDto {
  @ApiProperty({ format: 'date', description: 'the first trial day (the term start)' }) start!: string;
  @ApiProperty({ format: 'date', description: 'the day the trial ends (exclusive): the first day billed, the billing anchor; ended early: that day' })
  end!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when it ended (at its end, or early); null: still running' })
  endedAt!: string | null;
}

class ItemChangeDto {
  @ApiProperty({ enum: ['add', 'update', 'delete'] }) action!: string;
  @ApiProperty({ format: 'uuid', description: 'the item (an added item’s new id)' }) itemId!: string;
  @ApiProperty({ type: NamedRefDto, nullable: true, description: 'add and update: the item’s price from the change on; delete: null' })
  price!: NamedRefDto | null;
  @ApiProperty({ type: NamedRefDto, nullable: true }) product!: NamedRefDto | null;
  @ApiProperty({ type: Number, format: 'double', nullable: true, description: 'add and update: the quantity from the change on; delete: null' })
  quantity!: number | null;
}

/** A change of items (README: Changing items): scheduled (pendingChanges, the 202 of a later change) or applied (latestChange). */
export class SubscriptionChangeDto {
  @ApiProperty({ format: 'uuid', description: 'DELETE /subscriptions/{id}/changes/{changeId} drops it while pending' }) id!: string;
  @ApiProperty({ format: 'date', description: 'the first day the change is in force (the subscription’s time zone)' }) date!: string;
  @ApiProperty({ format: 'date-time', description: 'the instant it applies: the request’s (now) or the start of `date`' }) effectiveAt!: string;
  @ApiProperty({ enum: ['create_prorations', 'always_invoice', 'none'] }) prorationBehavior!: string;
  @ApiProperty({ type: [ItemChangeDto] }) items!: ItemChangeDto[];
  @ApiProperty({ format: 'date-time' }) requestedAt!: string;
}

/** The Subscription resource (README: Subscriptions). */
export class SubscriptionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() handle!: string;
  @ApiProperty({
    enum: ['trialing', 'active', 'paused', 'cancelled', 'ended'],
    description:
      'trialing: in its free trial (until trial.end); paused: nothing is billed until it resumes (pausedAt, resumeAt; a paused subscription may also have a cancelAt); ' +
      'cancelled: ends at cancelAt; ended: its last day has passed',
  })
  status!: string;
  @ApiProperty({ type: Object, description: 'the invoice customer of every invoice of the subscription' }) customer!: object;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ example: 'Europe/Helsinki' }) timeZone!: string;
  @ApiProperty({ type: TermDto }) term!: TermDto;
  @ApiProperty() autoRenewal!: boolean;
  @ApiProperty({ type: TrialDto, nullable: true, description: 'the free trial it started with (README: Trials); null: none' }) trial!: TrialDto | null;
  @ApiProperty({ type: String, format: 'date', nullable: true, description: 'the last day of service (inclusive) once cancelled' }) cancelAt!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when the pause in force began (its local date, the pause day, is still served); null: not paused (README: Pause and resume)',
  })
  pausedAt!: string | null;
  @ApiProperty({
    type: String,
    format: 'date',
    nullable: true,
    description: 'the day the pause in force ends by itself (the first day served again, from its local midnight); null: not paused, or resumed only by hand',
  })
  resumeAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) endedAt!: string | null;
  @ApiProperty({ type: [SubscriptionItemDto] }) items!: SubscriptionItemDto[];
  @ApiProperty({ type: PaymentMethodHintDto, nullable: true, description: 'charged automatically for each booked invoice' })
  paymentMethod!: PaymentMethodHintDto | null;
  @ApiProperty({ type: BillingFailureDto, nullable: true, description: 'the last failed attempt to bill the next charges (retried from retryAt)' })
  billingFailure!: BillingFailureDto | null;
  @ApiProperty({ type: [SubscriptionDiscountDto], description: 'coupons redeemed on it, in the order they apply (README: Coupons and promotion codes)' })
  discounts!: SubscriptionDiscountDto[];
  @ApiProperty({ type: [SubscriptionChangeDto], description: 'changes of items scheduled for later (effective period_end or a date), in the order they apply' })
  pendingChanges!: SubscriptionChangeDto[];
  @ApiProperty({
    type: SubscriptionChangeDto,
    nullable: true,
    description: 'the last change of items applied (subscription.updated carries it); null: never changed',
  })
  latestChange!: SubscriptionChangeDto | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class SubscriptionPageDto {
  @ApiProperty({ type: [SubscriptionDto] }) items!: SubscriptionDto[];
  @ApiProperty({ type: String, nullable: true }) nextPageToken!: string | null;
}
