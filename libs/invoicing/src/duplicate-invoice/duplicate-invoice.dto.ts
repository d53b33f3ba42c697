import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

export class DuplicateInvoiceDto {
  @ApiProperty({
    required: false,
    default: false,
    description:
      'false: a new draft copy (same type, customer, currency, memo and lines with new ids). true: a draft credit note for the booked invoice, every figure negated; booking it settles the invoice.',
  })
  @IsOptional()
  @IsBoolean()
  reverse?: boolean;
}
