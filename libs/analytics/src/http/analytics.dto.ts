import { ApiProperty } from '@nestjs/swagger';
import { AGE_BUCKETS } from '../read-model/analytics.read-model';
import { INTERVALS } from '../domain/intervals';
import { DEFAULT_LINK_TTL_SECONDS, MAX_LINK_TTL_SECONDS } from '../page/analytics-links';

const CURRENCY = {
  type: String,
  nullable: true,
  example: 'EUR',
  description: 'Uppercase ISO 4217; null: none asked for and none in use yet (every figure 0).',
} as const;
const CENTS = (description: string) => ({ type: 'integer', description: `${description} (minor units)` }) as const;

class AnswerScope {
  @ApiProperty(CURRENCY) currency!: string | null;
  @ApiProperty({ format: 'date-time', description: 'The instant the answer is as of: only events that occurred at or before it count.' }) asOf!: string;
}

class RangeScope extends AnswerScope {
  @ApiProperty({ enum: INTERVALS }) interval!: string;
  @ApiProperty({ format: 'date', description: 'First day (UTC), inclusive.' }) from!: string;
  @ApiProperty({ format: 'date', description: 'Last day (UTC), exclusive.' }) to!: string;
}

export class RevenueIntervalDto {
  @ApiProperty({ format: 'date', description: 'First day (inclusive).' }) start!: string;
  @ApiProperty({ format: 'date', description: 'Day after the last (exclusive).' }) end!: string;
  @ApiProperty(CENTS('Booked invoices’ totalInclVat by invoice date, credit notes negative, voided invoices left out')) invoiced!: number;
  @ApiProperty(CENTS('Succeeded payments less succeeded refunds, by the day they succeeded')) collected!: number;
  @ApiProperty(CENTS('The totalVat of the same invoices and credit notes')) tax!: number;
  @ApiProperty(CENTS('The line discounts of the same invoices (credit notes negative)')) discounts!: number;
  @ApiProperty(CENTS('The credit notes’ part of invoiced (≤ 0)')) creditNotes!: number;
}

export class RevenueDto extends RangeScope {
  @ApiProperty({ type: [RevenueIntervalDto] }) intervals!: RevenueIntervalDto[];
}

export class MrrIntervalDto {
  @ApiProperty({ format: 'date' }) start!: string;
  @ApiProperty({ format: 'date' }) end!: string;
  @ApiProperty(CENTS('MRR at the start of the interval (the instant its first day begins, UTC)')) startMrr!: number;
  @ApiProperty(CENTS('MRR at its end: startMrr + new + expansion + contraction + churn + reactivation, exactly')) mrr!: number;
  @ApiProperty(CENTS('Customers without MRR before who have some now, for the first time (≥ 0)')) new!: number;
  @ApiProperty(CENTS('Increases of customers with MRR at both ends (≥ 0)')) expansion!: number;
  @ApiProperty(CENTS('Decreases of customers with MRR at both ends (≤ 0)')) contraction!: number;
  @ApiProperty(CENTS('Customers with MRR at the start and none at the end (≤ 0)')) churn!: number;
  @ApiProperty(CENTS('Customers who had MRR once, none at the start, some at the end (≥ 0)')) reactivation!: number;
  @ApiProperty({ type: 'integer', description: 'Subscriptions with MRR > 0 at the end.' }) activeSubscriptions!: number;
  @ApiProperty({ type: 'integer', description: 'Customers with MRR > 0 at the end.' }) activeCustomers!: number;
  @ApiProperty(CENTS('Average revenue per account: mrr ÷ activeCustomers, half away from zero; 0 without customers')) arpa!: number;
  @ApiProperty(
    CENTS(
      'Usage (event_based) charges billed on subscription invoices dated in the interval, as rated (before discounts and tax), late-usage corrections included; not MRR',
    ),
  )
  usageRevenue!: number;
}

export class MrrDto extends RangeScope {
  @ApiProperty({ type: [MrrIntervalDto] }) intervals!: MrrIntervalDto[];
}

export class OpenInvoiceDto {
  @ApiProperty({ format: 'uuid' }) invoiceId!: string;
  @ApiProperty({ type: String, nullable: true, example: 'INV-000042' }) handle!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The customer record; null for an inline customer.' }) customerId!: string | null;
  @ApiProperty({ type: String, nullable: true }) customerName!: string | null;
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty({ format: 'date', description: 'The due date (the invoice date when it has none).' }) dueDate!: string;
  @ApiProperty({ type: 'integer', description: 'Whole days from the due date to asOf’s UTC date; 0 when not yet due.' }) daysPastDue!: number;
  @ApiProperty({ enum: AGE_BUCKETS }) bucket!: string;
  @ApiProperty(CENTS('Still due at asOf')) open!: number;
}

export class AgeBucketsDto {
  @ApiProperty(CENTS('Not yet past due')) current!: number;
  @ApiProperty({ ...CENTS('1 to 30 days past due'), name: '1-30' }) '1-30'!: number;
  @ApiProperty({ ...CENTS('31 to 60 days past due'), name: '31-60' }) '31-60'!: number;
  @ApiProperty({ ...CENTS('61 to 90 days past due'), name: '61-90' }) '61-90'!: number;
  @ApiProperty({ ...CENTS('More than 90 days past due'), name: 'over-90' }) 'over-90'!: number;
}

export class ReceivablesDto extends AnswerScope {
  @ApiProperty(CENTS('Everything still due on booked invoices (the sum of the buckets)')) total!: number;
  @ApiProperty({ type: AgeBucketsDto }) buckets!: AgeBucketsDto;
  @ApiProperty({ type: [OpenInvoiceDto], description: 'The 20 largest open invoices, largest first (ties by number).' }) largest!: OpenInvoiceDto[];
}

export class CreateAnalyticsLinkDto {
  @ApiProperty({
    type: 'integer',
    required: false,
    minimum: 1,
    maximum: MAX_LINK_TTL_SECONDS,
    default: DEFAULT_LINK_TTL_SECONDS,
    description: 'How long the link works, in seconds (default 15 minutes, at most 24 hours).',
  })
  ttlSeconds?: number;
}

export class AnalyticsLinkDto {
  @ApiProperty({
    format: 'uri',
    example: 'https://billing.example.com/analytics?token=…',
    description: 'The analytics page (GET /analytics?token=…), without a login until expiresAt; add &from=&to=&currency= to choose.',
  })
  url!: string;
  @ApiProperty({
    format: 'date-time',
    description: "When the link stops working, in real time (the environment's test clock neither moves nor is compared with it).",
  })
  expiresAt!: string;
}
