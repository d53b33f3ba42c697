import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsNumber, IsObject, IsOptional, IsString, IsUUID, Length, ValidateNested } from 'class-validator';
import { DiscountInputDto, DiscountsProperty, parseDiscountRequests } from '@billing/coupons';
import { CustomerInputDto } from '@billing/invoicing';
import { MAX_SUBSCRIPTION_ITEMS } from '../domain';
import { CreateSubscriptionInput } from './create-subscription.command';

export class SubscriptionTermInputDto {
  @ApiProperty({ format: 'date', example: '2026-01-31' }) @IsString() start!: string;
  @ApiProperty({ type: String, format: 'date', nullable: true, required: false, description: 'inclusive last day; absent or null: evergreen' })
  @IsOptional()
  @IsString()
  end?: string | null;
}

export class SubscriptionItemInputDto {
  @ApiProperty({ format: 'uuid', description: 'an active price of this environment with pricing in the currency, belonging to a product' })
  @IsString()
  priceId!: string;

  @ApiProperty({ type: Number, format: 'double', required: false, default: 1, description: '> 0, at most 4 decimals, at most 1000000000' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  quantity?: number;

  @ApiProperty({ type: String, nullable: true, required: false, description: 'a tax code of this environment for the invoice lines' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  taxCode?: string | null;
}

export class SubscriptionPaymentMethodDto {
  @ApiProperty({ example: 'sandbox', description: 'an enabled payment provider of the environment when the invoices are charged' })
  @IsString()
  @Length(1, 50)
  provider!: string;

  @ApiProperty({ example: 'tok_success', description: "the provider's payment method token" })
  @IsString()
  @Length(1, 500)
  token!: string;
}

/** Creates a subscription; id, status and every other read-only field are refused. */
export class CreateSubscriptionDto {
  @ApiProperty({ required: false, minLength: 1, maxLength: 100, description: 'unique in the environment; default the next SUB-000001' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  handle?: string;

  @ApiProperty({
    type: CustomerInputDto,
    required: false,
    description:
      "the invoice customer inline (a one-off customer with no record): every invoice of the subscription is this customer's; not together with customerId",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CustomerInputDto)
  customer?: CustomerInputDto;

  @ApiProperty({
    type: String,
    format: 'uuid',
    required: false,
    description:
      'a customer of this environment (POST /customers), not archived; not together with customer. Its invoices are made out to the customer; timeZone and paymentMethod default to the customer’s',
  })
  @IsOptional()
  @IsUUID()
  customerId?: string;

  @ApiProperty({ example: 'EUR', description: 'ISO 4217; every item price must have pricing in it' })
  @IsString()
  currency!: string;

  @ApiProperty({ type: SubscriptionTermInputDto })
  @IsObject()
  @ValidateNested()
  @Type(() => SubscriptionTermInputDto)
  term!: SubscriptionTermInputDto;

  @ApiProperty({ required: false, default: false, description: 'renew a termed subscription for the same length when its term ends' })
  @IsOptional()
  @IsBoolean()
  autoRenewal?: boolean;

  @ApiProperty({ required: false, default: 'UTC', example: 'Europe/Helsinki', description: 'IANA time zone: billAt is midnight in it' })
  @IsOptional()
  @IsString()
  timeZone?: string;

  @ApiProperty({
    type: SubscriptionPaymentMethodDto,
    required: false,
    nullable: true,
    description: 'charge every invoice the billing engine books with it, retrying soft declines on the environment’s schedule (README: Payments)',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SubscriptionPaymentMethodDto)
  paymentMethod?: SubscriptionPaymentMethodDto | null;

  @ApiProperty({ type: [SubscriptionItemInputDto], minItems: 1, maxItems: MAX_SUBSCRIPTION_ITEMS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SUBSCRIPTION_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => SubscriptionItemInputDto)
  items!: SubscriptionItemInputDto[];

  @ApiProperty({
    type: String,
    format: 'date',
    required: false,
    nullable: true,
    description:
      'a free trial from term.start to this day (exclusive): the first day billed, which becomes the billing anchor; after term.start, at most 730 days after it, within the first term; not together with trialDays',
  })
  @IsOptional()
  @IsString()
  trialEnd?: string | null;

  @ApiProperty({
    type: 'integer',
    required: false,
    nullable: true,
    minimum: 1,
    maximum: 730,
    description: 'a free trial of this many days from term.start (trialEnd = term.start + trialDays); not together with trialEnd',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  trialDays?: number | null;

  @DiscountsProperty(
    'coupons to redeem on the subscription, applied in this order (README: Coupons and promotion codes); each redemption is counted in this request’s transaction',
  )
  discounts?: DiscountInputDto[];
}

/** The body as domain input. */
export function createSubscriptionInput(body: CreateSubscriptionDto): CreateSubscriptionInput {
  const customer = body.customer;
  return {
    handle: body.handle ?? null,
    customer: customer
      ? { id: customer.id, handle: customer.handle, name: customer.name, billingAddress: customer.billingAddress ? { ...customer.billingAddress } : null }
      : null,
    customerId: body.customerId?.toLowerCase() ?? null,
    currency: body.currency,
    term: { start: body.term.start, end: body.term.end ?? null },
    autoRenewal: body.autoRenewal ?? false,
    timeZone: body.timeZone ?? null,
    items: body.items.map((item) => ({ priceId: item.priceId, quantity: item.quantity ?? 1, taxCode: item.taxCode ?? null })),
    paymentMethod: body.paymentMethod ? { provider: body.paymentMethod.provider, token: body.paymentMethod.token } : null,
    trialEnd: body.trialEnd ?? null,
    trialDays: body.trialDays ?? null,
    discounts: parseDiscountRequests(
      body.discounts?.map((discount) => ({ ...discount })),
      '/discounts',
    ),
  };
}
