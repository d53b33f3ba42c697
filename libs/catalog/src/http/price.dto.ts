import { ApiProperty, ApiPropertyOptional, OpenAPIObject } from '@nestjs/swagger';
import { BILLING_TIMINGS, PRICE_LIMITS, PRICE_MODELS, PURCHASES, TERM_UNITS } from '../domain';

/** The OpenAPI schema object type (not exported by @nestjs/swagger itself). */
type SchemaObject = Exclude<NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string], { $ref: string }>;

const AMOUNT: SchemaObject = { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'minor units (cents)' };

const FEE_ENTRY: SchemaObject = {
  type: 'object',
  title: 'fee',
  description: '`fee`: unitAmount per unit (quantities may have up to 4 decimals; the amount is rounded half away from zero).',
  required: ['unitAmount'],
  properties: { unitAmount: AMOUNT },
  additionalProperties: false,
};
const PACKAGE_ENTRY: SchemaObject = {
  type: 'object',
  title: 'package',
  description: '`package`: packageAmount per started block of packageSize units.',
  required: ['packageSize', 'packageAmount'],
  properties: { packageSize: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, packageAmount: AMOUNT },
  additionalProperties: false,
};
const TIERED_ENTRY: SchemaObject = {
  type: 'object',
  title: 'volume / graduated',
  description:
    '`volume`: every unit at the unit amount of the tier the whole quantity falls in (plus its flatAmount). ' +
    '`graduated`: each tier prices the units inside it (plus the flatAmount of every tier reached). ' +
    'A tier covers (previous upTo, upTo]; upTo strictly increases; only the last tier has upTo null (unbounded).',
  required: ['tiers'],
  properties: {
    tiers: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['upTo', 'unitAmount'],
        properties: {
          upTo: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, nullable: true },
          unitAmount: AMOUNT,
          flatAmount: { ...AMOUNT, description: 'minor units, default 0' },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

export const PRICING_PROPERTY = {
  type: 'object' as const,
  description:
    'Keyed by supported lowercase ISO 4217 currency code (at least one); each entry has the shape of the price model. ' +
    'Unknown or uppercase codes are a 422 at /pricing/<code>.',
  additionalProperties: { oneOf: [FEE_ENTRY, PACKAGE_ENTRY, TIERED_ENTRY] },
  example: {
    eur: {
      tiers: [
        { upTo: 5, unitAmount: 500 },
        { upTo: 10, unitAmount: 400 },
        { upTo: null, unitAmount: 300 },
      ],
    },
  },
};

/** The Price as the API returns it. */
export class PriceDto {
  @ApiProperty({ format: 'uuid', readOnly: true })
  id!: string;

  @ApiProperty({ minLength: 1, maxLength: PRICE_LIMITS.nameMaxLength, example: 'Pro monthly' })
  name!: string;

  @ApiProperty({
    type: String,
    required: false,
    maxLength: PRICE_LIMITS.descriptionMaxLength,
    description: 'internal notes, not shown to customers; omitted when the price has none (never null)',
  })
  description?: string;

  @ApiProperty({ enum: PRICE_MODELS })
  priceModel!: string;

  @ApiProperty({ enum: PURCHASES })
  purchase!: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    required: false,
    minimum: PRICE_LIMITS.termCountMin,
    maximum: PRICE_LIMITS.termCountMax,
    description: 'interval count with termUnit (30 with day means 30 days); present on recurring prices, omitted on one_time ones (never null)',
  })
  termCount?: number;

  @ApiProperty({ enum: TERM_UNITS, required: false, description: 'present on recurring prices, omitted on one_time ones (never null)' })
  termUnit?: string;

  @ApiProperty({ enum: BILLING_TIMINGS })
  billingTiming!: string;

  @ApiPropertyOptional({ description: 'the billable metric whose aggregated quantity per period an event_based price bills; only on event_based prices' })
  metricCode?: string;

  @ApiProperty(PRICING_PROPERTY)
  pricing!: Record<string, unknown>;

  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  productId!: string | null;

  @ApiProperty({ readOnly: true })
  archived!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, readOnly: true })
  archivedAt!: string | null;

  @ApiProperty({ format: 'date-time', readOnly: true })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', readOnly: true })
  updatedAt!: string;
}

export class PricePageDto {
  @ApiProperty({ type: [PriceDto], description: 'newest first' })
  items!: PriceDto[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as pageToken for the next page; null on the last page' })
  nextPageToken!: string | null;
}
