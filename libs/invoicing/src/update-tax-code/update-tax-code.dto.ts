import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';

/** Omitted fields keep their value; `description: null` clears it. Drafts take the new rate; booked invoices keep the rate they were booked with. */
export class UpdateTaxCodeDto {
  @ApiProperty({ description: 'A fraction between 0 and 1, at most 4 decimals.', type: Number, format: 'double', required: false, minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber()
  rate?: number;

  @ApiProperty({ required: false })
  @IsOptional()
  @IsBoolean()
  taxable?: boolean;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  description?: string | null;
}
