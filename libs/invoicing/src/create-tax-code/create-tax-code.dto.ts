import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';
import { TAX_CODE_MAX_LENGTH } from '../domain';

export class CreateTaxCodeDto {
  @ApiProperty({
    description: 'The code lines name in `taxCode`; case-sensitive, unique per environment.',
    minLength: 1,
    maxLength: TAX_CODE_MAX_LENGTH,
    example: 'VAT25',
  })
  @IsString()
  code!: string;

  @ApiProperty({
    description: 'A fraction between 0 and 1, at most 4 decimals (0.255 means 25.5%).',
    type: Number,
    format: 'double',
    minimum: 0,
    maximum: 1,
    example: 0.255,
  })
  @IsNumber()
  rate!: number;

  @ApiProperty({ description: 'When false, lines with this code carry no tax whatever the rate.' })
  @IsBoolean()
  taxable!: boolean;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  description?: string | null;
}
