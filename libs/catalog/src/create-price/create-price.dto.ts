import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BILLING_TIMINGS, PRICE_LIMITS, PRICE_MODELS, PURCHASES, TERM_UNITS } from '../domain';
import { PRICING_PROPERTY } from '../http/price.dto';

/**
 * The POST /prices body, for the API description only: the body reaches the
 * domain validator untouched (validateCreatePrice), which reports every
 * problem, unknown properties included, with a JSON pointer.
 */
export class CreatePriceBody {
  @ApiProperty({ minLength: 1, maxLength: PRICE_LIMITS.nameMaxLength, example: 'Pro monthly' })
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: PRICE_LIMITS.descriptionMaxLength })
  description?: string | null;

  @ApiProperty({ enum: PRICE_MODELS })
  priceModel!: string;

  @ApiProperty({ enum: PURCHASES })
  purchase!: string;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    nullable: true,
    minimum: PRICE_LIMITS.termCountMin,
    maximum: PRICE_LIMITS.termCountMax,
    description: 'required for recurring, rejected for one_time (null is as absent); with termUnit: 30 day = every 30 days',
  })
  termCount?: number | null;

  @ApiPropertyOptional({ type: String, enum: TERM_UNITS, nullable: true, description: 'required for recurring, rejected for one_time (null is as absent)' })
  termUnit?: string | null;

  @ApiPropertyOptional({ enum: BILLING_TIMINGS, default: 'advance' })
  billingTiming?: string;

  @ApiPropertyOptional({
    description:
      'required for (and only allowed on) an event_based price: the code of the billable metric whose aggregated quantity per period the price bills. ' +
      'Its format is checked here; that the metric exists is checked when subscribing to the price. An event_based price must be recurring.',
    pattern: '^[A-Za-z0-9_.:-]{1,100}$',
  })
  metricCode?: string;

  @ApiProperty(PRICING_PROPERTY)
  pricing!: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'an existing product of the same environment' })
  productId?: string | null;
}
