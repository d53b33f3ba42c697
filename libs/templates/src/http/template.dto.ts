import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TEMPLATE_LIMITS, TEMPLATE_TYPES } from '../domain';

export class TemplateDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: TEMPLATE_TYPES, example: 'invoice_pdf' })
  type!: string;

  @ApiProperty({ description: 'Liquid (see docs/templates.md for the variables and filters)', maxLength: TEMPLATE_LIMITS.contentMaxLength })
  content!: string;
}

export class TemplateGroupDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ minLength: 1, maxLength: TEMPLATE_LIMITS.nameMaxLength, example: 'Nordic invoices' })
  name!: string;

  @ApiProperty({ description: 'BCP 47 language tag money and dates are formatted for', example: 'fi', default: 'en' })
  locale!: string;

  @ApiProperty({ description: "whether documents render with this group when none is named (the environment's default)" })
  isDefault!: boolean;

  @ApiProperty({ type: [TemplateDto], description: 'one template of every type: invoice_pdf, credit_note_pdf, invoice_email_html' })
  templates!: TemplateDto[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class TemplateGroupPageDto {
  @ApiProperty({ type: [TemplateGroupDto] })
  items!: TemplateGroupDto[];

  @ApiProperty({ type: String, nullable: true, description: 'pass as pageToken for the next page; null on the last' })
  nextPageToken!: string | null;
}

export class TemplateGroupBody {
  @ApiProperty({ minLength: 1, maxLength: TEMPLATE_LIMITS.nameMaxLength, example: 'Nordic invoices' })
  name!: string;

  @ApiPropertyOptional({ description: 'BCP 47 language tag (en, fi, de-CH, …); absent: en', maxLength: TEMPLATE_LIMITS.localeMaxLength, example: 'fi' })
  locale?: string;
}

export class TemplateContentBody {
  @ApiProperty({
    description: 'the Liquid template; saved only when it parses (else a 422 naming the line and column)',
    maxLength: TEMPLATE_LIMITS.contentMaxLength,
  })
  content!: string;
}
