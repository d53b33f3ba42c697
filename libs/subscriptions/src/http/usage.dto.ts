import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AGGREGATIONS, MAX_GRACE_PERIOD_HOURS } from '../domain';
import { MAX_USAGE_BATCH } from '../ingest-usage-events/usage-batch';

export class CreateBillableMetricBody {
  @ApiProperty({ pattern: '^[A-Za-z0-9_.:-]{1,100}$', example: 'api_calls', description: 'unique in the environment; prices name it as metricCode' })
  code!: string;

  @ApiProperty({ minLength: 1, maxLength: 250, example: 'API calls' })
  name!: string;

  @ApiProperty({
    enum: AGGREGATIONS,
    description: "count: events; sum / max: the field's values (numbers ≥ 0, ≤ 4 decimals); unique_count: distinct values of the field",
  })
  aggregation!: string;

  @ApiPropertyOptional({ maxLength: 100, description: 'the property of the events aggregated: required except for count (not allowed there)' })
  field?: string;
}

export class BillableMetricDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiProperty()
  code!: string;
  @ApiProperty()
  name!: string;
  @ApiProperty({ enum: AGGREGATIONS })
  aggregation!: string;
  @ApiProperty({ type: String, nullable: true })
  field!: string | null;
  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

export class BillableMetricPageDto {
  @ApiProperty({ type: [BillableMetricDto] })
  items!: BillableMetricDto[];
  @ApiProperty({ type: String, nullable: true })
  nextPageToken!: string | null;
}

export class UsageSettingsDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_GRACE_PERIOD_HOURS,
    default: 0,
    description: 'hours after a period ends during which its invoice stays a draft for late usage events',
  })
  usageGracePeriodHours!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  updatedAt!: string | null;
}

export class UsageSettingsBody {
  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_GRACE_PERIOD_HOURS })
  usageGracePeriodHours!: number;
}

export class UsageEventInput {
  @ApiProperty({ minLength: 1, maxLength: 255, description: "the client's idempotency id: an id is counted once, forever" })
  id!: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'exactly one of subscriptionId and customerId' })
  subscriptionId?: string;
  @ApiPropertyOptional({ description: "the subscription's customer.id: the one subscription of the customer (not ended) that bills the metric" })
  customerId?: string;
  @ApiProperty()
  metricCode!: string;
  @ApiProperty({ format: 'date-time', description: "when the usage happened: at most 35 days before and 5 minutes after the environment's now" })
  timestamp!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: "the metric's field among them" })
  properties?: Record<string, unknown>;
}

export class UsageBatchBody {
  @ApiProperty({ type: [UsageEventInput], minItems: 1, maxItems: MAX_USAGE_BATCH })
  events!: UsageEventInput[];
}

export class UsageEventResultDto {
  @ApiProperty({ type: 'integer', description: 'the position of the event in the batch' })
  index!: number;
  @ApiProperty()
  id!: string;
  @ApiProperty({ enum: ['accepted', 'duplicate', 'rejected'] })
  status!: string;
  @ApiPropertyOptional({ format: 'uuid' })
  subscriptionId?: string;
  @ApiPropertyOptional({
    enum: [
      'unknown-metric',
      'unknown-subscription',
      'ambiguous-customer',
      'metric-not-on-subscription',
      'timestamp-too-old',
      'timestamp-in-future',
      'outside-service',
      'subscription-ended',
      'invalid-property',
      'event-id-reused',
    ],
  })
  reason?: string;
  @ApiPropertyOptional()
  detail?: string;
}

export class UsageBatchResultDto {
  @ApiProperty({ type: 'integer' })
  accepted!: number;
  @ApiProperty({ type: 'integer' })
  duplicates!: number;
  @ApiProperty({ type: 'integer' })
  rejected!: number;
  @ApiProperty({ type: [UsageEventResultDto] })
  results!: UsageEventResultDto[];
}

export class UsageLineDto {
  @ApiProperty({
    enum: ['units', 'flat', 'packages'],
    description: "units: of the quantity (a fee price's, or a tier's); flat: a tier's flat amount (quantity 1); packages: started packages",
  })
  kind!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'the tier (1-based) of a volume or graduated price; null otherwise' })
  tier!: number | null;
  @ApiProperty({ type: 'number', format: 'double', description: 'what the invoice line bills (4 decimals): the units in the tier, the packages, or 1' })
  quantity!: number;
  @ApiProperty({ type: 'integer', format: 'int64' })
  unitAmount!: number;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'the share other price versions of the period bill; 0 with one version' })
  discount!: number;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'unitAmount × quantity − discount' })
  amount!: number;
}

export class UsageSegmentDto {
  @ApiProperty({ format: 'date-time', description: 'when the price version took effect' })
  priceFrom!: string;
  @ApiProperty({ type: 'number', format: 'double', description: 'the share of the quantity that happened under this price version (4 decimals)' })
  quantity!: number;
  @ApiProperty({ type: 'integer', format: 'int64' })
  amount!: number;
  @ApiProperty({ type: [UsageLineDto], description: 'the invoice lines this share bills, as the billing engine writes them' })
  lines!: UsageLineDto[];
}

export class ItemUsageDto {
  @ApiProperty({ format: 'uuid' })
  itemId!: string;
  @ApiProperty()
  metricCode!: string;
  @ApiProperty({ format: 'date-time' })
  from!: string;
  @ApiProperty({ format: 'date-time' })
  to!: string;
  @ApiProperty({ type: 'number', format: 'double', description: 'the aggregated quantity (4 decimals)' })
  quantity!: number;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'what it bills, in minor units of the currency' })
  amount!: number;
  @ApiProperty()
  currency!: string;
  @ApiProperty({ type: [UsageSegmentDto] })
  segments!: UsageSegmentDto[];
}

export class SubscriptionUsageDto {
  @ApiProperty({ format: 'uuid' })
  subscriptionId!: string;
  @ApiProperty({ type: [ItemUsageDto] })
  items!: ItemUsageDto[];
}

export class CancelledUsageEventDto {
  @ApiProperty()
  id!: string;
  @ApiProperty({ format: 'uuid' })
  subscriptionId!: string;
  @ApiProperty()
  metricCode!: string;
  @ApiProperty({ format: 'date-time', description: "the event's timestamp" })
  timestamp!: string;
  @ApiProperty({ type: 'object', additionalProperties: true })
  properties!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time', description: "when it was cancelled (the environment's time)" })
  cancelledAt!: string;
}
