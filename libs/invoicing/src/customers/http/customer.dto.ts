import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { DiscountInputDto, DiscountsProperty, DiscountRequest, parseDiscountRequests } from '@billing/coupons';
import {
  MAX_METADATA_ENTRIES,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_VALUE_LENGTH,
  MAX_PAYMENT_TERMS_DAYS,
  MAX_TAX_IDS,
  CustomerFieldsInput,
} from '../../domain';
import { AddressInputDto } from '../../create-invoice/create-invoice.dto';
import { AddressDto } from '../../http/invoice-detail.dto';

const METADATA_DESCRIPTION = `At most ${MAX_METADATA_ENTRIES} string pairs: keys 1 to ${MAX_METADATA_KEY_LENGTH} characters, values at most ${MAX_METADATA_VALUE_LENGTH}. Yours: the service never reads them.`;
const METADATA_VALUES = { type: 'string', maxLength: MAX_METADATA_VALUE_LENGTH } as const;

// ---------------------------------------------------------------- input

export class TaxIdInputDto {
  @ApiProperty({
    example: 'eu_vat',
    description:
      '`eu_vat` (checked: an EU country prefix, EL for Greece, XI for Northern Ireland, and that member state’s format and check digits) or any lowercase type (free text)',
  })
  @IsString()
  type!: string;
  @ApiProperty({ example: 'FI20774740', maxLength: 100, description: 'an eu_vat is stored without spaces, dots or dashes, uppercase' })
  @IsString()
  value!: string;
}

export class InvoiceSettingsInputDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, required: false, description: 'the template group its invoice documents use' })
  @IsOptional()
  @IsString()
  templateGroupId?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 2000 })
  @IsOptional()
  @IsString()
  footer?: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    required: false,
    minimum: 0,
    maximum: MAX_PAYMENT_TERMS_DAYS,
    description: 'an invoice booked without a due date is due this many days after its booking date',
  })
  @IsOptional()
  @IsInt()
  paymentTermsDays?: number | null;
}

export class CustomerPaymentMethodInputDto {
  @ApiProperty({ example: 'sandbox', maxLength: 50 }) @IsString() provider!: string;
  @ApiProperty({ example: 'tok_success', maxLength: 500, description: "the provider's token: kept, never shown again (responses show a hint)" })
  @IsString()
  token!: string;
}

/**
 * POST /customers and PUT /customers/{id}: every member optional. On create an
 * absent member takes its default; on update an absent member is kept and
 * null clears it (to its default). Read-only members are refused (422).
 */
export class CustomerRequestDto {
  @ApiProperty({ required: false, maxLength: 255, description: 'unique in the environment; default `cus_` and 12 characters of the id' })
  @IsOptional()
  @IsString()
  handle?: string;
  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 500 }) @IsOptional() @IsString() name?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 254, example: 'billing@example.com', description: 'where invoices go' })
  @IsOptional()
  @IsString()
  email?: string | null;
  @ApiProperty({ type: () => AddressInputDto, nullable: true, required: false })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => AddressInputDto)
  billingAddress?: AddressInputDto | null;
  @ApiProperty({ type: () => [TaxIdInputDto], nullable: true, required: false, maxItems: MAX_TAX_IDS })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => TaxIdInputDto)
  taxIds?: TaxIdInputDto[] | null;
  @ApiProperty({ type: String, nullable: true, required: false, example: 'fi-FI', description: 'BCP 47; default en' })
  @IsOptional()
  @IsString()
  locale?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false, example: 'Europe/Helsinki', description: 'IANA; default UTC' })
  @IsOptional()
  @IsString()
  timeZone?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false, example: 'EUR', description: 'preferred currency, ISO 4217' })
  @IsOptional()
  @IsString()
  currency?: string | null;
  @ApiProperty({ type: () => InvoiceSettingsInputDto, nullable: true, required: false, description: 'on update, members it omits are kept' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => InvoiceSettingsInputDto)
  invoiceSettings?: InvoiceSettingsInputDto | null;
  @ApiProperty({ type: () => CustomerPaymentMethodInputDto, nullable: true, required: false })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CustomerPaymentMethodInputDto)
  defaultPaymentMethod?: CustomerPaymentMethodInputDto | null;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: METADATA_VALUES,
    maxProperties: MAX_METADATA_ENTRIES,
    description: METADATA_DESCRIPTION,
    nullable: true,
  })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, string> | null;

  @DiscountsProperty(
    'coupons to redeem on the customer (added to those it has), applied to every subscription invoice of the customer after the subscription’s own, in this order; each redemption is counted in this request’s transaction (README: Customers, Discounts)',
  )
  discounts?: DiscountInputDto[];
}

/** The body as domain input (class instances become plain data). */
export function customerInput(body: CustomerRequestDto): CustomerFieldsInput {
  const plain = <T>(value: T): T => (value == null ? value : (JSON.parse(JSON.stringify(value)) as T));
  return {
    handle: body.handle,
    name: body.name,
    email: body.email,
    billingAddress: plain(body.billingAddress),
    taxIds: plain(body.taxIds),
    locale: body.locale,
    timeZone: body.timeZone,
    currency: body.currency,
    invoiceSettings: plain(body.invoiceSettings),
    defaultPaymentMethod: plain(body.defaultPaymentMethod),
    metadata: body.metadata,
  };
}

/** The body's discounts as redemption requests (none when absent). */
export function customerDiscounts(body: CustomerRequestDto): DiscountRequest[] {
  return parseDiscountRequests(
    body.discounts?.map((discount) => ({ ...discount })),
    '/discounts',
  );
}

// ---------------------------------------------------------------- output

export class TaxIdDto {
  @ApiProperty() type!: string;
  @ApiProperty() value!: string;
}

export class InvoiceSettingsDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) templateGroupId!: string | null;
  @ApiProperty({ type: String, nullable: true }) footer!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, maximum: MAX_PAYMENT_TERMS_DAYS }) paymentTermsDays!: number | null;
}

export class CustomerPaymentMethodHintDto {
  @ApiProperty() provider!: string;
  @ApiProperty({
    example: 'cess',
    description: 'the last characters of the token (at most 4, never more than a quarter of it); the token itself is never shown',
  })
  tokenHint!: string;
}

export class CustomerBalanceDto {
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    description: 'credit available to the customer, in minor units (≥ 0): the ledger sum negated (entries are negative when they credit the customer)',
  })
  available!: number;
}

export class CustomerDiscountAppliesToDto {
  @ApiProperty({ type: [String], format: 'uuid' }) productIds!: string[];
}

export class CustomerDiscountDto {
  @ApiProperty({ format: 'uuid', description: 'the discount (its redemption): DELETE /customers/{id}/discounts/{discountId} ends it' }) id!: string;
  @ApiProperty({ format: 'uuid' }) couponId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'the promotion code it was redeemed through' }) promotionCodeId!: string | null;
  @ApiProperty() name!: string;
  @ApiProperty({ type: Number, format: 'double', nullable: true }) percentOff!: number | null;
  @ApiProperty({ type: 'integer', format: 'int64', nullable: true, description: 'minor units of currency' }) amountOff!: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'EUR',
    description: 'the currency its amount off (or its promotion code’s minimum) is in: only invoices in it get the discount; null: any currency',
  })
  currency!: string | null;
  @ApiProperty({ enum: ['once', 'repeating', 'forever'] }) duration!: string;
  @ApiProperty({ type: 'integer', nullable: true }) durationInMonths!: number | null;
  @ApiProperty({ type: CustomerDiscountAppliesToDto, nullable: true, description: 'only lines of these products are discounted' })
  appliesTo!: CustomerDiscountAppliesToDto | null;
  @ApiProperty({ format: 'date', description: 'the day it was applied (customer’s time zone): invoices whose period starts on or after it are discounted' })
  start!: string;
  @ApiProperty({
    type: String,
    format: 'date',
    nullable: true,
    description:
      'the last day an invoice period may start on (repeating: start + months − 1 day; once: the date of the invoice that used it; ended early: that day); null: open-ended',
  })
  end!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'when it stopped discounting (used or ended early)' }) endedAt!: string | null;
}

/** The Customer resource (README: Customers). */
export class CustomerDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() handle!: string;
  @ApiProperty({ enum: ['active', 'archived'], description: 'archived: deleted (DELETE /customers/{id}); still readable, listed only with a status filter' })
  status!: 'active' | 'archived';
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ type: String, nullable: true }) email!: string | null;
  @ApiProperty({ type: () => AddressDto }) billingAddress!: AddressDto;
  @ApiProperty({ type: () => [TaxIdDto] }) taxIds!: TaxIdDto[];
  @ApiProperty({ example: 'en' }) locale!: string;
  @ApiProperty({ example: 'UTC' }) timeZone!: string;
  @ApiProperty({ type: String, nullable: true }) currency!: string | null;
  @ApiProperty({ type: () => InvoiceSettingsDto }) invoiceSettings!: InvoiceSettingsDto;
  @ApiProperty({ type: () => CustomerPaymentMethodHintDto, nullable: true }) defaultPaymentMethod!: CustomerPaymentMethodHintDto | null;
  @ApiProperty({ type: 'object', additionalProperties: METADATA_VALUES, maxProperties: MAX_METADATA_ENTRIES, description: METADATA_DESCRIPTION })
  metadata!: Record<string, string>;
  @ApiProperty({ type: () => [CustomerBalanceDto], description: "the customer's credit balance per currency; empty until a balance transaction exists" })
  balances!: CustomerBalanceDto[];
  @ApiProperty({
    type: () => [CustomerDiscountDto],
    description: 'coupons redeemed on the customer, in the order applied (ended ones too): every subscription invoice of the customer gets them',
  })
  discounts!: CustomerDiscountDto[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updatedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) archivedAt!: string | null;
}

export class CustomerPageDto {
  @ApiProperty({ type: () => [CustomerDto] }) items!: CustomerDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as pageToken for the next page; null on the last page.' }) nextPageToken!: string | null;
}
