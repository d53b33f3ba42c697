import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PRICE_LIMITS } from '../domain';

/** The POST /products body (API description only; validated by validateCreateProduct). */
export class CreateProductBody {
  @ApiProperty({ minLength: 1, maxLength: PRICE_LIMITS.nameMaxLength, example: 'Pro plan' })
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: PRICE_LIMITS.descriptionMaxLength })
  description?: string | null;
}
