import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { CREDIT_NOTE_REASONS, MAX_INVOICE_LINES } from '../domain';
import { IssueCreditNoteInput } from './issue-credit-note.command';

/** What to credit of one line of the invoice: exactly one of quantity and amount. */
export class CreditNoteLineInputDto {
  @ApiProperty({ format: 'uuid', description: 'A line of the credited invoice.' })
  @IsUUID()
  lineId!: string;

  @ApiProperty({
    type: Number,
    format: 'double',
    required: false,
    nullable: true,
    description: "Units to credit (at most 4 decimals), more than 0 and at most what is left of the line's quantity.",
  })
  @IsOptional()
  @IsNumber()
  quantity?: number | null;

  @ApiProperty({
    type: Number,
    format: 'int64',
    required: false,
    nullable: true,
    description: "Amount to credit excluding tax, 1 … what is left of the line's amount; its tax follows the line's.",
  })
  @IsOptional()
  @IsInt()
  amount?: number | null;
}

const MONEY = (description: string) => ({ type: Number, format: 'int64', required: false, nullable: true, minimum: 0, description });

/** POST /invoices/{invoiceId}/credit-notes: exactly one of `lines` and `amount`. */
export class IssueCreditNoteDto {
  @ApiProperty({
    type: () => [CreditNoteLineInputDto],
    required: false,
    nullable: true,
    maxItems: MAX_INVOICE_LINES,
    description: 'What to credit, per line of the invoice.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INVOICE_LINES)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CreditNoteLineInputDto)
  lines?: CreditNoteLineInputDto[] | null;

  @ApiProperty({
    type: Number,
    format: 'int64',
    required: false,
    nullable: true,
    minimum: 1,
    description: "An amount to credit, tax included, split over the invoice's tax treatments.",
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  amount?: number | null;

  @ApiProperty({ enum: CREDIT_NOTE_REASONS })
  @IsIn(CREDIT_NOTE_REASONS)
  reason!: string;

  @ApiProperty({ type: String, required: false, nullable: true, maxLength: 4000, description: "The credit note's memo." })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  memo?: string | null;

  @ApiProperty(MONEY("Refunded through the payments context (the invoice's payments, oldest first); at most what they paid and is not refunded."))
  @IsOptional()
  @IsInt()
  @Min(0)
  refundAmount?: number | null;

  @ApiProperty(MONEY('Left as credit to the customer (the customer balance, once it exists).'))
  @IsOptional()
  @IsInt()
  @Min(0)
  creditAmount?: number | null;

  @ApiProperty(MONEY('Settled outside the service (cash back, a bank transfer by hand).'))
  @IsOptional()
  @IsInt()
  @Min(0)
  outOfBandAmount?: number | null;
}

export function issueCreditNoteInput(invoiceId: string, body: IssueCreditNoteDto): IssueCreditNoteInput {
  return {
    invoiceId,
    lines: body.lines,
    amount: body.amount,
    reason: body.reason,
    memo: body.memo,
    refundAmount: body.refundAmount,
    creditAmount: body.creditAmount,
    outOfBandAmount: body.outOfBandAmount,
  };
}
