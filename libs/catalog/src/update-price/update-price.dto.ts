import { ApiPropertyOptional } from '@nestjs/swagger';
import { PRICE_LIMITS } from '../domain';
import { PRICING_PROPERTY } from '../http/price.dto';

/**
 * The PUT /prices/{priceId} body (API description only; validated by
 * validateUpdatePrice). Omitted fields keep their values; any other property
 * is a 422 pointing at it.
 */
export class UpdatePriceBody {
  @ApiPropertyOptional({ minLength: 1, maxLength: PRICE_LIMITS.nameMaxLength })
  name?: string;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: PRICE_LIMITS.termCountMin,
    maximum: PRICE_LIMITS.termCountMax,
    description: 'recurring prices only',
  })
  termCount?: number;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: PRICE_LIMITS.descriptionMaxLength, description: 'null clears it' })
  description?: string | null;

  @ApiPropertyOptional({ ...PRICING_PROPERTY, description: `${PRICING_PROPERTY.description} Replaces the whole dictionary.` })
  pricing?: Record<string, unknown>;
}
