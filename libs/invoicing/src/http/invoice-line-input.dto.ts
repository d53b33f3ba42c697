import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsInt, IsNumber, IsObject, IsOptional, IsString, IsUUID, Max, MaxLength, Min, ValidateNested } from 'class-validator';

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

export class LineDiscountInputDto {
  @ApiProperty({ type: Number, format: 'double', nullable: true, required: false, description: 'Percent with at most two decimals (23.50 means 23.50%), 0 to 100.', example: 23.5 })
  @IsOptional()
  @IsNumber()
  percentage?: number | null;

  @ApiProperty({ type: Number, format: 'int64', nullable: true, required: false, description: 'Fixed discount in the lowest currency unit; at most the line amount.' })
  @IsOptional()
  @IsInt()
  amount?: number | null;
}

/** The update line of INTERFACE.md; exactly one of discount.percentage or discount.amount. */
export class InvoiceLineInputDto {
  @ApiProperty({ type: Number, format: 'double', description: 'Count of units billed, at most 4 decimals, not negative.', example: 2.5 })
  @IsNumber()
  quantity!: number;

  @ApiProperty({ type: Number, format: 'int32', description: 'Unit amount in the lowest unit of the invoice currency.', example: 1999 })
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  unitAmount!: number;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, required: false, description: 'The id of an existing line of this invoice to keep it; omit for a new line.' })
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

  @ApiProperty({ type: String, nullable: true, required: false, description: 'A tax code of this environment (see /tax-codes); none means the line is not taxed.' })
  @IsOptional()
  @IsString()
  taxCode?: string | null;

  @ApiProperty({ type: () => LineDiscountInputDto, nullable: true, required: false, description: 'Either percentage or amount must be provided.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LineDiscountInputDto)
  discount?: LineDiscountInputDto | null;
}

/**
 * The `items` member of the create and update bodies: absent, null, or an
 * array of line objects. class-validator validates an array nested in the
 * array as more lines (so `[[]]` would pass and `[[{...}]]` reach the domain
 * as a line); such elements are replaced by null, which nested validation
 * reports at `/items/<i>` like any other element that is not an object.
 */
export function LineItems(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsArray(),
    ValidateNested({ each: true, message: 'each line must be an object' }),
    Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((item: unknown) => (Array.isArray(item) ? null : item)) : value)),
    Type(() => InvoiceLineInputDto),
  );
}
