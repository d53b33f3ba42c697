import { ApiProperty, OmitType } from '@nestjs/swagger';
import { CREDIT_NOTE_REASONS, MAX_INVOICE_LINES } from '../domain';

/** Response documentation: exactly the InvoiceDetail of the README and the OpenAPI document. */
export class AddressDto {
  @ApiProperty({ type: String, nullable: true }) street1!: string | null;
  @ApiProperty({ type: String, nullable: true }) street2!: string | null;
  @ApiProperty({ type: String, nullable: true }) postalCode!: string | null;
  @ApiProperty({ type: String, nullable: true }) city!: string | null;
  @ApiProperty({ type: String, nullable: true }) county!: string | null;
  @ApiProperty({ type: String, nullable: true }) country!: string | null;
  @ApiProperty({ type: String, nullable: true }) state!: string | null;
}

export class InvoiceCustomerDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true }) handle!: string | null;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    description:
      'Where mail about the invoice goes: an inline customer’s e-mail, or the record’s as snapshotted (null: none). Always present on an invoice; an upcoming invoice leaves it out.',
  })
  email?: string | null;
  @ApiProperty({ type: () => AddressDto, description: 'Always present; its members are null when unknown.' }) billingAddress!: AddressDto;
}

export class InvoiceLineTaxDto {
  @ApiProperty({ description: 'When true tax is applied; when false tax is 0.' }) taxable!: boolean;
  @ApiProperty({ type: String, nullable: true }) taxCode!: string | null;
  @ApiProperty({ type: Number, format: 'double', description: 'A fraction, 0.255 means 25.5%; precision 4.' }) taxRate!: number;
}

export class InvoiceLineDiscountDto {
  @ApiProperty({
    type: Number,
    format: 'double',
    required: false,
    description: 'The percentage as given (23.5 means 23.5%). Present only on a percentage discount: omitted for a fixed discount or none.',
  })
  percentage?: number;
  @ApiProperty({ type: Number, format: 'int64', description: 'The discount in the lowest currency unit.' }) amount!: number;
}

export class InvoiceLineDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true, readOnly: true }) sku!: string | null;
  @ApiProperty({ type: String, nullable: true, readOnly: true }) title!: string | null;
  @ApiProperty({ type: String, nullable: true, readOnly: true }) description!: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true, readOnly: true }) periodStart!: string | null;
  @ApiProperty({ type: String, format: 'date', nullable: true, readOnly: true }) periodEnd!: string | null;
  @ApiProperty({ type: Number, format: 'double', description: 'Count of units billed; precision 4.' }) quantity!: number;
  @ApiProperty({ type: Number, format: 'int64' }) unitAmount!: number;
  @ApiProperty({ type: Number, format: 'int64', readOnly: true, description: 'unitAmount × quantity − discount, rounded half away from zero.' })
  amount!: number;
  @ApiProperty({ type: Number, format: 'int64', readOnly: true, description: 'amount × taxRate; 0 when the line is not taxable.' }) taxAmount!: number;
  @ApiProperty({ type: () => InvoiceLineTaxDto }) tax!: InvoiceLineTaxDto;
  @ApiProperty({ type: () => InvoiceLineDiscountDto }) discount!: InvoiceLineDiscountDto;
  @ApiProperty({ required: false, format: 'uuid', description: 'The price the line bills, when the line names one (POST/PUT /invoices).' })
  priceId?: string;
}

export class InvoiceDiscountAppliesToDto {
  @ApiProperty({ type: [String], format: 'uuid' }) productIds!: string[];
}

/** A coupon redeemed on a draft invoice (README: Coupons and promotion codes). */
export class InvoiceDiscountDto {
  @ApiProperty({ format: 'uuid', description: 'the redemption' }) id!: string;
  @ApiProperty({ format: 'uuid' }) couponId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the promotion code it was redeemed through' }) promotionCodeId!: string | null;
  @ApiProperty() name!: string;
  @ApiProperty({ type: Number, format: 'double', nullable: true }) percentOff!: number | null;
  @ApiProperty({ type: 'integer', format: 'int64', nullable: true, description: "minor units of the invoice's currency" }) amountOff!: number | null;
  @ApiProperty({ type: InvoiceDiscountAppliesToDto, nullable: true, description: 'only lines whose price is of these products are discounted' })
  appliesTo!: InvoiceDiscountAppliesToDto | null;
}

export class InvoiceSettlementDto {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty({ type: Number, format: 'int64' }) amount!: number;
  @ApiProperty({ type: String, nullable: true }) reference!: string | null;
  @ApiProperty({ type: String, nullable: true }) note!: string | null;
}

/** Where a credit note's money goes: the four amounts add up to the credit note's total (as a positive figure). */
export class CreditNoteDispositionDto {
  @ApiProperty({ format: 'uuid', description: 'The invoice the credit note credits.' }) invoiceId!: string;
  @ApiProperty({ enum: CREDIT_NOTE_REASONS }) reason!: string;
  @ApiProperty({ type: Number, format: 'int64', description: 'The part that reduced what was still due on the invoice.' }) dueReducedAmount!: number;
  @ApiProperty({ type: Number, format: 'int64', description: "Refunded through the invoice's payments (see GET /payments?filter=invoiceId eq …)." })
  refundAmount!: number;
  @ApiProperty({ type: Number, format: 'int64', description: 'Left as credit to the customer.' }) creditAmount!: number;
  @ApiProperty({ type: Number, format: 'int64', description: 'Settled outside the service.' }) outOfBandAmount!: number;
}

export class InvoiceDetailDto {
  @ApiProperty({ format: 'uuid', readOnly: true }) id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    readOnly: true,
    description: 'Unique, gapless number per environment and type, assigned on booking (INV-000001, CN-000001).',
  })
  handle!: string | null;
  @ApiProperty({ type: String, nullable: true, readOnly: true }) memo!: string | null;
  @ApiProperty({
    enum: ['draft', 'booked', 'void'],
    description: 'draft → booked (PUT /invoices/{id}/book) → void (PUT /invoices/{id}/void: a booked invoice nothing has settled; it keeps its number).',
  })
  status!: string;
  @ApiProperty({ enum: ['invoice', 'credit_note'] }) type!: string;
  @ApiProperty({ enum: ['settled', 'over_settled', 'under_settled', 'not_settled'] }) settlementStatus!: string;
  @ApiProperty({ format: 'date', readOnly: true }) date!: string;
  @ApiProperty({ type: String, format: 'date', nullable: true, readOnly: true }) dueDate!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 4217 code, uppercase.', example: 'EUR' }) currency!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updatedAt!: string | null;
  @ApiProperty({ type: () => InvoiceCustomerDto }) customer!: InvoiceCustomerDto;
  @ApiProperty({
    type: () => [InvoiceLineDto],
    nullable: true,
    readOnly: true,
    maxItems: MAX_INVOICE_LINES,
    description: `The lines, at most ${MAX_INVOICE_LINES}.`,
  })
  items!: InvoiceLineDto[];
  @ApiProperty({
    type: () => [InvoiceDiscountDto],
    readOnly: true,
    description: 'coupons redeemed on the draft (POST/PUT /invoices discounts), applied to its lines in this order; kept when booked',
  })
  discounts!: InvoiceDiscountDto[];
  @ApiProperty({ type: () => [InvoiceSettlementDto], nullable: true, readOnly: true }) settlements!: InvoiceSettlementDto[];
  @ApiProperty({ type: Number, format: 'int64', readOnly: true }) totalExclVat!: number;
  @ApiProperty({ type: Number, format: 'int64', readOnly: true }) totalVat!: number;
  @ApiProperty({ type: Number, format: 'int64', readOnly: true }) totalInclVat!: number;
  @ApiProperty({
    type: Number,
    format: 'int64',
    readOnly: true,
    description: 'totalInclVat minus the settled sum (creditApplied included: it is a settlement); 0 on a void invoice.',
  })
  totalDue!: number;
  @ApiProperty({
    readOnly: true,
    description:
      'Marked uncollectible (PUT /invoices/{id}/mark-uncollectible, or by dunning after its last failed try): no longer collected, still payable; a settlement that settles it clears it.',
  })
  uncollectible!: boolean;
  @ApiProperty({
    type: Number,
    format: 'int64',
    readOnly: true,
    description: 'On an invoice: what its booked credit notes credit together, never beyond totalInclVat. 0 on a credit note.',
  })
  creditedAmount!: number;
  @ApiProperty({
    type: () => CreditNoteDispositionDto,
    nullable: true,
    readOnly: true,
    description:
      'On a credit note issued with POST /invoices/{id}/credit-notes: its reason and where its money goes. null on invoices and on credit notes made with duplicate.',
  })
  creditNote!: CreditNoteDispositionDto | null;
  @ApiProperty({
    type: Number,
    format: 'int64',
    readOnly: true,
    minimum: 0,
    description:
      "Credit applied from the customer's credit balance when the invoice was booked (invoices made out to a customer record): a settlement, so totalDue is reduced by it. 0 when none, and once a void returned it to the balance.",
  })
  creditApplied!: number;
  @ApiProperty({
    type: String,
    format: 'uri',
    nullable: true,
    readOnly: true,
    description:
      'The hosted invoice page (`<PUBLIC_BASE_URL>/i/<token>`): the customer views the invoice, downloads its PDF and pays it there, without a login. ' +
      'null for a draft. PUT /invoices/{id}/hosted-link/rotate replaces it (the old link stops working). ' +
      'In `?asOf=` answers, the link as it is now (a link of then may open nothing after a rotation); null while the invoice is a draft now.',
  })
  hostedInvoiceUrl!: string | null;
}

/**
 * An invoice in a list: the InvoiceDetail without `items` (lines), `settlements` and `hostedInvoiceUrl`, so a page
 * stays small and a listing hands out no links (GET /invoices/{id} has them).
 */
export class InvoiceSummaryDto extends OmitType(InvoiceDetailDto, ['items', 'settlements', 'hostedInvoiceUrl'] as const) {}

export class InvoicePageDto {
  @ApiProperty({
    type: () => [InvoiceSummaryDto],
    description: 'Invoices without their lines and settlements (GET /invoices/{invoiceId} has them), so a page of up to 100 stays small.',
  })
  items!: InvoiceSummaryDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as pageToken for the next page; null on the last page.' }) nextPageToken!: string | null;
}

export class TaxCodeDto {
  @ApiProperty() code!: string;
  @ApiProperty({ type: Number, format: 'double' }) rate!: number;
  @ApiProperty() taxable!: boolean;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updatedAt!: string | null;
}

export class TaxCodePageDto {
  @ApiProperty({ type: () => [TaxCodeDto] }) items!: TaxCodeDto[];
  @ApiProperty({ type: String, nullable: true }) nextPageToken!: string | null;
}
