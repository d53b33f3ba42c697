import { ApiProperty } from '@nestjs/swagger';
import { IsNumber } from 'class-validator';

export class RefundPaymentDto {
  @ApiProperty({ type: 'integer', description: 'minor units, 1 … amount − refundedAmount' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  amount!: number;
}
