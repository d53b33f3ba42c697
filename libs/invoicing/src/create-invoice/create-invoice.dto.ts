import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, IsUUID, MaxLength, ValidateNested } from 'class-validator';
import { DiscountInputDto, DiscountsProperty, DiscountRequest, parseDiscountRequests } from '@billing/coupons';
import { MAX_INVOICE_LINES } from '../domain';
import { InvoiceLineInputDto, LineItems, requestedLines } from '../http/invoice-line-input.dto';
import { IsRequiredNullableString } from '../http/validators';
import { CreateInvoiceInput } from './create-invoice.command';

export class AddressInputDto {
  @ApiProperty({ type: String, nullable: true, required: false }) @IsOptional() @IsString() @MaxLength(500) street1?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false }) @IsOptional() @IsString() @MaxLength(500) street2?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false }) @IsOptional() @IsString() @MaxLength(500) postalCode?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false }) @IsOptional() @IsString() @MaxLength(500) city?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false }) @IsOptional() @IsString() @MaxLength(500) county?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false }) @IsOptional() @IsString() @MaxLength(500) country?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false }) @IsOptional() @IsString() @MaxLength(500) state?: string | null;
}

export class CustomerInputDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id!: string;

  @ApiProperty({ type: String, nullable: true, maxLength: 255, description: 'Required; null when the customer has no handle.' })
  @IsRequiredNullableString(255)
  handle!: string | null;

  @ApiProperty({ type: String, nullable: true, maxLength: 500, description: 'Required; null when the customer has no name.' })
  @IsRequiredNullableString(500)
  name!: string | null;

  @ApiProperty({ type: () => AddressInputDto, required: false, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AddressInputDto)
  billingAddress?: AddressInputDto | null;
}

/** An invoice's inline customer: a subscription's inline customer (CustomerInputDto) and where mail about the invoice goes. */
export class InvoiceCustomerInputDto extends CustomerInputDto {
  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    maxLength: 254,
    example: 'billing@example.com',
    description: 'Where mail about the invoice goes (the invoice, receipts, payment-failed notices); the customer record’s e-mail rules. Absent or null: none.',
  })
  @IsOptional()
  @IsString()
  email?: string | null;
}

/**
 * Creates a draft invoice; `id`, totals, handle and every other read-only
 * field are refused. The customer is given inline (a one-off customer with no
 * record) or as `customerId` (a customer record): exactly one of the two.
 */
export class CreateInvoiceDto {
  @ApiProperty({ type: () => InvoiceCustomerInputDto, required: false, description: 'A one-off customer with no record; not together with customerId.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => InvoiceCustomerInputDto)
  customer?: InvoiceCustomerInputDto;

  @ApiProperty({
    type: String,
    format: 'uuid',
    required: false,
    description:
      'A customer of this environment (POST /customers), not archived; not together with customer. The invoice shows the customer as it is while a draft; booking freezes it.',
  })
  @IsOptional()
  @IsUUID()
  customerId?: string;

  @ApiProperty({ description: 'Three-letter ISO 4217 code (any case); stored uppercase.', example: 'EUR' })
  @IsString()
  currency!: string;

  @ApiProperty({ type: String, format: 'date', required: false, nullable: true, description: 'Default: today (UTC).' })
  @IsOptional()
  @IsString()
  date?: string | null;

  @ApiProperty({ type: String, format: 'date', required: false, nullable: true, description: 'Not before date.' })
  @IsOptional()
  @IsString()
  dueDate?: string | null;

  @ApiProperty({ type: String, required: false, nullable: true, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  memo?: string | null;

  @ApiProperty({
    type: () => [InvoiceLineInputDto],
    required: false,
    nullable: true,
    maxItems: MAX_INVOICE_LINES,
    description: `At most ${MAX_INVOICE_LINES} lines.`,
  })
  @LineItems()
  items?: InvoiceLineInputDto[] | null;

  @DiscountsProperty(
    'Coupons on the draft, applied to its lines in this order after each line’s own discount (README: Coupons and promotion codes), each redeemed in this request’s transaction.',
  )
  discounts?: DiscountInputDto[];
}

/** The body as domain input. */
export function createInvoiceInput(body: CreateInvoiceDto): CreateInvoiceInput {
  const address = body.customer?.billingAddress;
  return {
    customer: body.customer && {
      id: body.customer.id,
      handle: body.customer.handle,
      name: body.customer.name,
      email: body.customer.email,
      billingAddress: address && {
        street1: address.street1,
        street2: address.street2,
        postalCode: address.postalCode,
        city: address.city,
        county: address.county,
        country: address.country,
        state: address.state,
      },
    },
    customerId: body.customerId?.toLowerCase(),
    currency: body.currency,
    date: body.date,
    dueDate: body.dueDate,
    memo: body.memo,
    items: requestedLines(body.items),
  };
}

/** The body's discounts as redemption requests (none when absent); the update keeps apart absent (keep) from given. */
export function invoiceDiscounts(discounts: readonly DiscountInputDto[] | null | undefined): DiscountRequest[] {
  return parseDiscountRequests(
    discounts?.map((discount) => ({ ...discount })),
    '/discounts',
  );
}
