import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

export class BookInvoiceDto {
  @ApiProperty({ type: String, format: 'date', required: false, nullable: true, description: 'The booking (invoice) date; default today (UTC).' })
  @IsOptional()
  @IsString()
  date?: string | null;
}
