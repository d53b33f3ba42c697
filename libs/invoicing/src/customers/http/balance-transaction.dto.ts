import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { CUSTOMER_BALANCE_KINDS, CustomerBalanceKind, MAX_BALANCE_DESCRIPTION_LENGTH } from '../../domain';

/** POST /customers/{id}/balance-transactions (README: Credit balance). */
export class BalanceTransactionRequestDto {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    example: -5000,
    description:
      'Minor units, not 0. Negative: credit to the customer (applied to their next invoices in the currency); positive: an amount owed, taken from the credit available (at most all of it).',
  })
  @IsInt()
  amount!: number;

  @ApiProperty({ example: 'EUR', description: 'ISO 4217 code (answered uppercase): a customer has one balance per currency.' })
  @IsString()
  currency!: string;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: MAX_BALANCE_DESCRIPTION_LENGTH })
  @IsOptional()
  @IsString()
  description?: string | null;
}

/** One entry of a customer's credit-balance ledger. */
export class BalanceTransactionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    description: 'Minor units, never 0. Negative: credit to the customer; positive: credit taken (an amount owed, or credit applied to an invoice).',
  })
  amount!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({
    enum: CUSTOMER_BALANCE_KINDS,
    description:
      'adjustment (POST /customers/{id}/balance-transactions), invoice_applied (credit applied when an invoice was booked), credit_note (a credit note’s creditAmount), void_returned (the credit a voided invoice had taken, given back), invoice_credit (the negative total of an invoice booked for the customer, which settles it)',
  })
  kind!: CustomerBalanceKind;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'the invoice applied to, voided, credited by the credit note, or whose negative total it is',
  })
  invoiceId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'on a credit_note entry: the credit note' }) creditNoteId!: string | null;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    maximum: 0,
    description: 'The ledger’s sum in the currency after this entry, in the same sign (never above 0): its negation is the credit then available.',
  })
  balanceAfter!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class BalanceTransactionPageDto {
  @ApiProperty({ type: () => [BalanceTransactionDto], description: 'Newest first.' }) items!: BalanceTransactionDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as pageToken for the next page; null on the last page.' }) nextPageToken!: string | null;
}
