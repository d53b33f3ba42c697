import { ApiProperty } from '@nestjs/swagger';

/** The POST /prices/{priceId}/quote body (API description only; validated by the domain's quotePrice). */
export class QuotePriceBody {
  @ApiProperty({ example: 'eur', description: 'a currency the price has pricing in' })
  currency!: string;

  @ApiProperty({ type: 'number', format: 'double', minimum: 0, example: 11, description: 'units; at most 4 decimals' })
  quantity!: number;
}

export class QuoteDto {
  @ApiProperty({ format: 'uuid' })
  priceId!: string;

  @ApiProperty({ example: 'eur' })
  currency!: string;

  @ApiProperty({ type: 'number', format: 'double', example: 11, description: 'units, as requested' })
  quantity!: number;

  @ApiProperty({ type: 'integer', format: 'int64', example: 4800, description: 'minor units (cents), rounded half away from zero' })
  amount!: number;
}
