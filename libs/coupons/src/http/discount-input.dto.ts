import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

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
