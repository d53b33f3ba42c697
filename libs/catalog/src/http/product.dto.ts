import { ApiProperty } from '@nestjs/swagger';
import { PRICE_LIMITS } from '../domain';

export class ProductDto {
  @ApiProperty({ format: 'uuid', readOnly: true })
  id!: string;

  @ApiProperty({ minLength: 1, maxLength: PRICE_LIMITS.nameMaxLength })
  name!: string;

  @ApiProperty({ type: String, nullable: true, maxLength: PRICE_LIMITS.descriptionMaxLength })
  description!: string | null;

  @ApiProperty({ format: 'date-time', readOnly: true })
  createdAt!: string;
}

export class ProductPageDto {
  @ApiProperty({ type: [ProductDto], description: 'newest first' })
  items!: ProductDto[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as pageToken for the next page; null on the last page' })
  nextPageToken!: string | null;
}
