import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength } from 'class-validator';

export class AddSettlementDto {
  @ApiProperty({ format: 'date' })
  @IsString()
  date!: string;

  @ApiProperty({
    type: Number,
    format: 'int64',
    description: 'In the lowest currency unit; not 0. Negative for a refund (positive on a credit note).',
    example: 1000,
  })
  @IsInt()
  amount!: number;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  reference?: string | null;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  note?: string | null;
}
