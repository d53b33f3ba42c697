import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsNumber, IsObject, IsOptional, IsString, IsUUID, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { ElementsOf } from '@billing/platform';
import { MAX_INVOICE_LINES, RequestedLine } from '../domain';

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

export class LineDiscountInputDto {
  @ApiProperty({
    type: Number,
    format: 'double',
    nullable: true,
    required: false,
    description: 'Percent with at most two decimals (23.50 means 23.50%), 0 to 100.',
    example: 23.5,
  })
  @IsOptional()
  @IsNumber()
  percentage?: number | null;

  @ApiProperty({
    type: Number,
    format: 'int64',
    nullable: true,
    required: false,
    description: 'Fixed discount in the lowest currency unit; at most the line amount.',
  })
  @IsOptional()
  @IsInt()
  amount?: number | null;
}

/** A line of the create and update bodies (README, OpenAPI document); exactly one of discount.percentage or discount.amount. */
export class InvoiceLineInputDto {
  @ApiProperty({ type: Number, format: 'double', description: 'Count of units billed, at most 4 decimals, not negative.', example: 2.5 })
  @IsNumber()
  quantity!: number;

  @ApiProperty({ type: Number, format: 'int32', description: 'Unit amount in the lowest unit of the invoice currency.', example: 1999 })
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  unitAmount!: number;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    required: false,
    description: 'The id of an existing line of this invoice to keep it; omit for a new line.',
  })
  @IsOptional()
  @IsUUID()
  id?: string | null;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  title?: string | null;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 4000 })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  description?: string | null;

  @ApiProperty({ type: String, nullable: true, required: false, maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  sku?: string | null;

  @ApiProperty({ type: String, format: 'date', nullable: true, required: false })
  @IsOptional()
  @IsString()
  periodStart?: string | null;

  @ApiProperty({ type: String, format: 'date', nullable: true, required: false })
  @IsOptional()
  @IsString()
  periodEnd?: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    required: false,
    description: 'A tax code of this environment (see /tax-codes); none means the line is not taxed.',
  })
  @IsOptional()
  @IsString()
  taxCode?: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    required: false,
    description: 'A price of this environment the line bills (optional): a coupon with appliesTo discounts the line only when it names the price’s product.',
  })
  @IsOptional()
  @IsString()
  priceId?: string | null;

  @ApiProperty({ type: () => LineDiscountInputDto, nullable: true, required: false, description: 'Either percentage or amount must be provided.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LineDiscountInputDto)
  discount?: LineDiscountInputDto | null;
}

/**
 * The `items` member of the create and update bodies: absent, null, or an
 * array of at most MAX_INVOICE_LINES line objects. The lines are made
 * InvoiceLineInputDto instances here rather than with @Type, for two reasons:
 * - only the first MAX_INVOICE_LINES + 1 elements are converted and validated,
 *   so a body of 35 000 lines costs no more than one of 501 (ArrayMaxSize still
 *   sees more than the limit and answers 422 at /items);
 * - class-validator would validate an array nested in the array as more lines
 *   (`[[]]` would pass and `[[{...}]]` reach the domain as a line); elements
 *   that are not objects become null, which nested validation reports at
 *   `/items/<i>`.
 */
export function LineItems(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_INVOICE_LINES, { message: `must have at most ${MAX_INVOICE_LINES} lines` }),
    ValidateNested({ each: true, message: 'each line must be an object' }),
    ElementsOf(() => InvoiceLineInputDto),
    // class-transformer walks the whole array before any @Transform; typed as String that walk is one
    // cheap String() per element instead of a deep copy (~1 s for 35 000 lines). The value is rebuilt
    // from the raw body below.
    Type(() => String),
    Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
      const raw = obj[key];
      if (!Array.isArray(raw)) return raw;
      return raw.slice(0, MAX_INVOICE_LINES + 1).map((item: unknown) => (isLineObject(item) ? plainToInstance(InvoiceLineInputDto, item) : null));
    }),
  );
}

function isLineObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The lines of a create or update body as domain input (absent and null kept apart: they mean keep and clear). */
export function requestedLines(items: readonly InvoiceLineInputDto[] | null | undefined): RequestedLine[] | null | undefined {
  if (items === null || items === undefined) return items;
  return items.map((item) => ({
    id: item.id,
    quantity: item.quantity,
    unitAmount: item.unitAmount,
    title: item.title,
    description: item.description,
    sku: item.sku,
    periodStart: item.periodStart,
    periodEnd: item.periodEnd,
    discount: item.discount && { percentage: item.discount.percentage, amount: item.discount.amount },
    taxCode: item.taxCode,
    priceId: item.priceId,
  }));
}
