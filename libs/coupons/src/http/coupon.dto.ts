import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_APPLIES_TO_PRODUCTS, MAX_DURATION_MONTHS, MAX_REDEMPTIONS } from '../domain';

/** Bodies and answers of /coupons and /promotion-codes as OpenAPI shows them (bodies are validated by the domain). */

const AMOUNTS = {
  type: 'object' as const,
  additionalProperties: { type: 'integer', format: 'int64', minimum: 1 },
  minProperties: 1,
  example: { EUR: 1000, USD: 1200 },
};

export class AppliesToDto {
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: MAX_APPLIES_TO_PRODUCTS, description: 'products of this environment' })
  productIds!: string[];
}

export class CreateCouponBody {
  @ApiPropertyOptional({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'unique in the environment, case-insensitively' })
  code?: string;

  @ApiProperty({ minLength: 1, maxLength: 250, example: '20 % for 3 months' })
  name!: string;

  @ApiPropertyOptional({
    type: Number,
    format: 'double',
    minimum: 0.01,
    maximum: 100,
    multipleOf: 0.01,
    description: 'exactly one of percentOff and amountOff',
  })
  percentOff?: number;

  @ApiPropertyOptional({ ...AMOUNTS, description: 'minor units per ISO 4217 currency; exactly one of percentOff and amountOff' })
  amountOff?: Record<string, number>;

  @ApiProperty({ enum: ['once', 'repeating', 'forever'] })
  duration!: string;

  @ApiPropertyOptional({ type: Number, format: 'int32', minimum: 1, maximum: MAX_DURATION_MONTHS, description: 'with repeating only, required there' })
  durationInMonths?: number;

  @ApiPropertyOptional({ type: Number, format: 'int32', minimum: 1, maximum: MAX_REDEMPTIONS, nullable: true, description: 'absent or null: unlimited' })
  maxRedemptions?: number | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: "no redemption after it (the environment's clock)" })
  redeemBy?: string | null;

  @ApiPropertyOptional({ type: AppliesToDto, nullable: true, description: 'only lines of these products are discounted; absent: every line' })
  appliesTo?: AppliesToDto | null;
}

export class UpdateCouponBody {
  @ApiPropertyOptional({ minLength: 1, maxLength: 250 })
  name?: string;

  @ApiPropertyOptional({ type: Number, format: 'int32', minimum: 1, nullable: true, description: 'only upward; null: unlimited' })
  maxRedemptions?: number | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'null: no end' })
  redeemBy?: string | null;
}

export class CouponDto {
  @ApiProperty({ format: 'uuid', readOnly: true }) id!: string;
  @ApiProperty({ enum: ['active', 'archived'], readOnly: true }) status!: string;
  @ApiProperty({ type: String, nullable: true }) code!: string | null;
  @ApiProperty() name!: string;
  @ApiProperty({ type: Number, format: 'double', nullable: true }) percentOff!: number | null;
  @ApiProperty({ ...AMOUNTS, nullable: true }) amountOff!: Record<string, number> | null;
  @ApiProperty({ enum: ['once', 'repeating', 'forever'] }) duration!: string;
  @ApiProperty({ type: Number, format: 'int32', nullable: true }) durationInMonths!: number | null;
  @ApiProperty({ type: AppliesToDto, nullable: true }) appliesTo!: AppliesToDto | null;
  @ApiProperty({ type: Number, format: 'int32', nullable: true }) maxRedemptions!: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) redeemBy!: string | null;
  @ApiProperty({ type: Number, format: 'int32', readOnly: true, description: 'redemptions so far' }) timesRedeemed!: number;
  @ApiProperty({ format: 'date-time', readOnly: true }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, readOnly: true }) updatedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, readOnly: true }) archivedAt!: string | null;
}

export class CouponPageDto {
  @ApiProperty({ type: [CouponDto], description: 'newest first' }) items!: CouponDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as pageToken for the next page; null on the last page' }) nextPageToken!: string | null;
}

export class RestrictionsDto {
  @ApiProperty({ required: false, default: false, description: 'only a customer record with no subscription yet' }) firstTimeOnly!: boolean;
  @ApiPropertyOptional({ ...AMOUNTS, nullable: true, description: 'an invoice is discounted only when its lines total at least this (per currency)' })
  minimumAmount!: Record<string, number> | null;
}

export class CreatePromotionCodeBody {
  @ApiProperty({ format: 'uuid', description: 'a coupon of this environment, not archived' }) couponId!: string;
  @ApiProperty({ pattern: '^[A-Za-z0-9_-]{1,100}$', description: 'what a customer types: unique in the environment, case-insensitively' }) code!: string;
  @ApiPropertyOptional({ type: Number, format: 'int32', minimum: 1, nullable: true }) maxRedemptions?: number | null;
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: "no redemption after it (the environment's clock)" })
  expiresAt?: string | null;
  @ApiPropertyOptional({ type: RestrictionsDto, nullable: true }) restrictions?: RestrictionsDto | null;
}

export class PromotionCodeDto {
  @ApiProperty({ format: 'uuid', readOnly: true }) id!: string;
  @ApiProperty({ enum: ['active', 'archived'], readOnly: true }) status!: string;
  @ApiProperty({ format: 'uuid' }) couponId!: string;
  @ApiProperty() code!: string;
  @ApiProperty({ type: Number, format: 'int32', nullable: true }) maxRedemptions!: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt!: string | null;
  @ApiProperty({ type: RestrictionsDto }) restrictions!: RestrictionsDto;
  @ApiProperty({ type: Number, format: 'int32', readOnly: true }) timesRedeemed!: number;
  @ApiProperty({ format: 'date-time', readOnly: true }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, readOnly: true }) archivedAt!: string | null;
}

export class PromotionCodePageDto {
  @ApiProperty({ type: [PromotionCodeDto], description: 'newest first' }) items!: PromotionCodeDto[];
  @ApiProperty({ type: String, nullable: true, description: 'pass as pageToken for the next page; null on the last page' }) nextPageToken!: string | null;
}
