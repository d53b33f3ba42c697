import { ApiProperty } from '@nestjs/swagger';
import { KNOWN_PROVIDERS } from '../domain';
import { Type } from 'class-transformer';
import { IsNumber, IsObject, IsOptional, IsString, Length, ValidateNested } from 'class-validator';

export class PaymentMethodDto {
  @ApiProperty({ enum: KNOWN_PROVIDERS, description: 'an enabled payment provider of the environment' })
  @IsString()
  provider!: string;

  @ApiProperty({
    example: 'tok_success',
    description: "the provider's payment method token (sandbox: tok_success, tok_decline, tok_insufficient_funds, tok_gateway_error, tok_timeout)",
  })
  @IsString()
  @Length(1, 500)
  token!: string;
}

/** Charges a booked invoice. */
export class CreatePaymentDto {
  @ApiProperty({ format: 'uuid', description: 'a booked invoice of this environment with totalDue > 0' })
  @IsString()
  invoiceId!: string;

  @ApiProperty({ type: 'integer', required: false, description: 'minor units, 1 … totalDue; default the total due' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  amount?: number;

  @ApiProperty({ type: PaymentMethodDto })
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentMethodDto)
  paymentMethod!: PaymentMethodDto;
}
