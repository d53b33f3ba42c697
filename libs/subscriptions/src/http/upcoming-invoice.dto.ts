import { ApiProperty, OmitType } from '@nestjs/swagger';
import { InvoiceCustomerDto, InvoiceLineDto } from '@billing/invoicing';

/** An invoice line as the booked invoice will show it, without the line id a booking assigns. */
export class UpcomingInvoiceLineDto extends OmitType(InvoiceLineDto, ['id'] as const) {}

export class UpcomingUsageDto {
  @ApiProperty({ format: 'uuid' }) itemId!: string;
  @ApiProperty() metricCode!: string;
  @ApiProperty({ format: 'date' }) periodStart!: string;
  @ApiProperty({ format: 'date' }) periodEnd!: string;
  @ApiProperty({ type: 'number', format: 'double', description: 'the usage events received so far in the period, aggregated (4 decimals)' })
  quantity!: number;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'what it bills, in minor units of the currency' }) amount!: number;
}

/** The upcoming invoice: the invoice the billing engine would book at billAt, less id, number, status and timestamps. */
export class UpcomingInvoiceDto {
  @ApiProperty({ format: 'uuid' }) subscriptionId!: string;
  @ApiProperty({ format: 'date-time', description: 'the instant the billing engine books this invoice (midnight in the subscription’s time zone)' })
  billAt!: string;
  @ApiProperty({ format: 'date', description: 'the local date of billAt: the invoice date' }) date!: string;
  @ApiProperty({ type: String, format: 'date', nullable: true, description: 'date + the environment’s payment terms' }) dueDate!: string | null;
  @ApiProperty({ description: 'ISO 4217 code, uppercase.', example: 'EUR' }) currency!: string;
  @ApiProperty({ type: String, nullable: true }) memo!: string | null;
  @ApiProperty({ type: () => InvoiceCustomerDto }) customer!: InvoiceCustomerDto;
  @ApiProperty({ type: () => [UpcomingInvoiceLineDto], description: 'The lines in the order the booked invoice will have them.' })
  items!: UpcomingInvoiceLineDto[];
  @ApiProperty({ type: () => [UpcomingUsageDto], description: 'Per usage item billed on this invoice: its period’s usage so far.' })
  usage!: UpcomingUsageDto[];
  @ApiProperty({ type: Number, format: 'int64' }) totalExclVat!: number;
  @ApiProperty({ type: Number, format: 'int64' }) totalVat!: number;
  @ApiProperty({ type: Number, format: 'int64' }) totalInclVat!: number;
}

/** POST /subscriptions/{id}/changes/preview: what a change would bill, nothing written. */
export class ChangePreviewDto {
  @ApiProperty({
    type: UpcomingInvoiceDto,
    nullable: true,
    description: 'always_invoice effective now: the invoice of the proration lines booked at once (billAt: now); otherwise null',
  })
  immediateInvoice!: UpcomingInvoiceDto | null;
  @ApiProperty({
    type: UpcomingInvoiceDto,
    nullable: true,
    description: 'the next invoice the billing engine books after the change; null: nothing left to bill',
  })
  upcomingInvoice!: UpcomingInvoiceDto | null;
}
