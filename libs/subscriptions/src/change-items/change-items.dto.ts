import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';
import { DiscountInputDto, DiscountsProperty, parseDiscountRequests } from '@billing/coupons';
import { MAX_SUBSCRIPTION_ITEMS, PRORATION_BEHAVIORS } from '../domain';
import { ChangeItemsInput } from './change-items.command';

export class ChangeItemInputDto {
  @ApiProperty({
    required: false,
    format: 'uuid',
    description: 'an item of the subscription to change or delete (not a usage-based, event_based, item: those do not change); absent: add an item',
  })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiProperty({
    required: false,
    format: 'uuid',
    description:
      'adding: required, an active recurring (advance or arrears, never usage-based event_based) price with pricing in the subscription’s currency; changing: the new price, billing like the old one (same interval and timing)',
  })
  @IsOptional()
  @IsString()
  priceId?: string;

  @ApiProperty({ type: Number, format: 'double', required: false, description: 'adding: default 1; > 0, at most 4 decimals, at most 1000000000' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  quantity?: number;

  @ApiProperty({ required: false, enum: [true], description: 'true with id (and nothing else): delete the item' })
  @IsOptional()
  @IsBoolean()
  delete?: boolean;
}

/** POST /subscriptions/{id}/changes and …/changes/preview. */
export class ChangeItemsDto {
  @ApiProperty({ type: [ChangeItemInputDto], maxItems: MAX_SUBSCRIPTION_ITEMS, description: 'at least one; applied in order' })
  @IsArray()
  @ArrayMaxSize(MAX_SUBSCRIPTION_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => ChangeItemInputDto)
  items!: ChangeItemInputDto[];

  @ApiProperty({
    required: false,
    default: 'now',
    example: 'now',
    description:
      '"now"; "period_end" (the day after the current billing period: the latest current-period end among the recurring items; in a trial, its end); or a date (YYYY-MM-DD in the subscription’s time zone) after today and not after its last day',
  })
  @IsOptional()
  @IsString()
  effective?: string;

  @ApiProperty({ required: false, enum: PRORATION_BEHAVIORS, default: 'create_prorations', description: 'README: Changing items' })
  @IsOptional()
  @IsIn(PRORATION_BEHAVIORS)
  prorationBehavior?: (typeof PRORATION_BEHAVIORS)[number];

  @DiscountsProperty('coupons to redeem with the change (not by a preview): they discount invoices whose period starts on or after the change’s first day')
  discounts?: DiscountInputDto[];
}

/** The body as domain input. */
export function changeItemsInput(body: ChangeItemsDto): ChangeItemsInput {
  return {
    items: body.items.map((item) => ({ id: item.id ?? null, priceId: item.priceId ?? null, quantity: item.quantity ?? null, delete: item.delete ?? null })),
    effective: body.effective ?? 'now',
    prorationBehavior: body.prorationBehavior ?? 'create_prorations',
    discounts: parseDiscountRequests(
      body.discounts?.map((discount) => ({ ...discount })),
      '/discounts',
    ),
  };
}
