import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, ValidateIf } from 'class-validator';
import { DiscountInputDto, DiscountsProperty } from '@billing/coupons';
import { MAX_INVOICE_LINES } from '../domain';
import { InvoiceLineInputDto, LineItems, requestedLines } from '../http/invoice-line-input.dto';
import { UpdateInvoiceInput } from './update-invoice.command';

/** Exactly the PUT /invoices/{invoiceId} body (README, OpenAPI document): no other properties are accepted. */
export class UpdateInvoiceDto {
  @ApiProperty({ format: 'date', description: 'The invoice date.' })
  @IsString()
  date!: string;

  @ApiProperty({ type: String, nullable: true, description: 'Three-letter ISO 4217 code; null keeps the current currency.', example: 'EUR' })
  @ValidateIf((body: UpdateInvoiceDto) => body.currency !== null)
  @IsString()
  currency!: string | null;

  @ApiProperty({ type: String, format: 'date', nullable: true, required: false, description: 'Omitted: kept; null: cleared. Not before date.' })
  @IsOptional()
  @IsString()
  dueDate?: string | null;

  @ApiProperty({
    type: () => [InvoiceLineInputDto],
    nullable: true,
    required: false,
    maxItems: MAX_INVOICE_LINES,
    description: `Replaces the lines (omitted: kept; null: no lines), at most ${MAX_INVOICE_LINES}. A line with the id of an existing line keeps that id; a line without id is new.`,
  })
  @LineItems()
  items?: InvoiceLineInputDto[] | null;

  @DiscountsProperty(
    'Coupons on the draft, applied to its lines in this order after each line’s own discount (README: Coupons and promotion codes), each redeemed in this request’s transaction. Omitted: the draft keeps its coupons (re-applied to its lines). Given: the draft’s coupons from now on — one it has already keeps its redemption (never counted twice), a new one is redeemed, one left out leaves the draft (its redemption stays counted).',
  )
  discounts?: DiscountInputDto[];
}

/** The body as domain input: `dueDate` and `items` keep their absence (keep) apart from null (clear). */
export function updateInvoiceInput(body: UpdateInvoiceDto): UpdateInvoiceInput {
  return { date: body.date, currency: body.currency, dueDate: body.dueDate, items: requestedLines(body.items) };
}
