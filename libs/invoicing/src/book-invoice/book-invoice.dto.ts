import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

export class BookInvoiceDto {
  @ApiProperty({
    type: String,
    format: 'date',
    required: false,
    nullable: true,
    description: "The invoice date to book with; omitted or null: the draft's own date. Not after the draft's due date.",
  })
  @IsOptional()
  @IsString()
  date?: string | null;
}
