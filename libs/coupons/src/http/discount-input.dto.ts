import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, ValidateNested } from 'class-validator';
import { MAX_DISCOUNTS } from '../redemption/redeem-discounts';

/** A discount a request names (`discounts` of subscriptions, customers and draft invoices): parsed by parseDiscountRequests. */
export class DiscountInputDto {
  @ApiProperty({ required: false, format: 'uuid', description: 'a coupon of this environment; exactly one of couponId and promotionCode' })
  @IsOptional()
  @IsString()
  couponId?: string;

  @ApiProperty({
    required: false,
    maxLength: 100,
    description: 'a promotion code of this environment (case-insensitive); exactly one of couponId and promotionCode',
  })
  @IsOptional()
  @IsString()
  promotionCode?: string;
}

/** The `discounts` member of a request body (at most MAX_DISCOUNTS), documented and validated alike everywhere; `description` says what it discounts. */
export function DiscountsProperty(description: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type: [DiscountInputDto], required: false, maxItems: MAX_DISCOUNTS, description }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_DISCOUNTS),
    ValidateNested({ each: true }),
    Type(() => DiscountInputDto),
  );
}
