import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '@billing/shared-kernel';
import { CommandContext, Written } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, IfMatch, parseLimit, readQuery, resourceDocs, Versioned } from '@billing/platform';
import { CreateTaxCodeCommand } from '../create-tax-code/create-tax-code.command';
import { CreateTaxCodeDto } from '../create-tax-code/create-tax-code.dto';
import { UpdateTaxCodeCommand } from '../update-tax-code/update-tax-code.command';
import { UpdateTaxCodeDto } from '../update-tax-code/update-tax-code.dto';
import { InvoicingReadModel } from '../read-model/invoicing.read-model';
import { TaxCodeView, taxCodeViewOf } from '../read-model/tax-code-view';
import { TaxCodeState } from '../domain';
import { TaxCodeDto, TaxCodePageDto } from './invoice-detail.dto';

const ETAG_HEADER = { ETag: { description: 'The tax code version, for If-Match.', schema: { type: 'string', example: '"1"' } } };
const CREATED_HEADERS = { ...ETAG_HEADER, Location: { description: 'The new tax code: /tax-codes/{code}, the code URL-encoded.', schema: { type: 'string' } } };
const LIST_QUERY = ['limit', 'pageToken'] as const;
const TAX_CODE = resourceDocs({
  type: TaxCodeDto,
  headers: ETAG_HEADER,
  id: { name: 'code', description: 'The tax code (case-sensitive; URL-encode special characters).' },
  ifMatch: { name: 'if-match', required: false, description: 'An ETag from an earlier response; a stale one is a 409.' },
  notFound: 'No such tax code in this environment',
});

/** The tax-code register of the environment: lines name a code, and record its rate and taxability when set. */
@ApiTags('Tax codes')
@Controller('tax-codes')
export class TaxCodesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: InvoicingReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @TAX_CODE.create({
    summary: 'Create a tax code',
    answer: 'The new tax code.',
    headers: CREATED_HEADERS,
    conflict: 'The code already exists in this environment (tax-code-exists)',
    invalid: 'Invalid code, rate (0 to 1, 4 decimals) or taxable',
  })
  async create(@Caller() caller: CallerContext, @Body() body: CreateTaxCodeDto): Promise<Versioned<TaxCodeView>> {
    const input = { code: body.code, rate: body.rate, taxable: body.taxable, description: body.description };
    const written = await this.commands.execute<CreateTaxCodeCommand, Written<TaxCodeState>>(
      new CreateTaxCodeCommand(caller.environmentId, input, this.context(caller)),
    );
    return answer(written, `/tax-codes/${encodeURIComponent(written.id)}`);
  }

  @Get()
  @TAX_CODE.list({
    summary: 'List tax codes',
    description: 'Ordered by code, keyset paged with an opaque pageToken.',
    answer: '`{items, nextPageToken}`; nextPageToken is null on the last page.',
    type: TaxCodePageDto,
  })
  async list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, LIST_QUERY);
    return this.readModel.taxCodes(caller.environmentId, parseLimit(q.limit), q.pageToken);
  }

  @Get(':code')
  @TAX_CODE.read({ summary: 'Get a tax code', answer: 'The tax code.' })
  get(@Caller() caller: CallerContext, @Param('code') code: string): Promise<Versioned<TaxCodeView>> {
    return this.taxCode(caller, code);
  }

  @Put(':code')
  @TAX_CODE.write({
    summary: 'Update a tax code',
    description:
      'Omitted fields are kept. Draft invoices show and are booked at the new rate and taxability at once; booked invoices keep the rate they were booked with, and credit notes credit at the rates of the invoice they credit.',
    answer: 'The tax code.',
    conflict: 'Stale If-Match or a concurrent write (version-conflict)',
  })
  async update(
    @Caller() caller: CallerContext,
    @Param('code') code: string,
    @Body() body: UpdateTaxCodeDto,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<TaxCodeView>> {
    const input = { code, rate: body.rate, taxable: body.taxable, description: body.description };
    return answer(
      await this.commands.execute<UpdateTaxCodeCommand, Written<TaxCodeState>>(
        new UpdateTaxCodeCommand(caller.environmentId, input, this.context(caller), expectedVersion),
      ),
    );
  }

  private context(caller: CallerContext): CommandContext {
    return commandContext(caller, this.clock);
  }

  /** The tax code as the read model has it, with its version for the ETag. */
  private async taxCode(caller: CallerContext, code: string): Promise<Versioned<TaxCodeView>> {
    const found = await this.readModel.taxCode(caller.environmentId, code);
    if (!found) throw new NotFoundError('Tax code', code);
    return new Versioned(found.resource, found.version);
  }
}

/** A write's answer: the tax code as its command left it (not read back: see InvoicesController.answer). */
function answer({ id, version, state }: Written<TaxCodeState>, location?: string): Versioned<TaxCodeView> {
  const view = taxCodeViewOf(state);
  if (!view) throw new NotFoundError('Tax code', id);
  return new Versioned(view, version, location);
}
