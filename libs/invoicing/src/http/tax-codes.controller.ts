import { Body, Controller, Get, Headers, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { NotFoundError } from '@billing/shared-kernel';
import { Caller, CallerContext, Clock, commandMetadata, etagFor, parseLimit, problemResponse } from '@billing/platform';
import { CreateTaxCodeCommand } from '../create-tax-code/create-tax-code.command';
import { CreateTaxCodeDto } from '../create-tax-code/create-tax-code.dto';
import { UpdateTaxCodeCommand } from '../update-tax-code/update-tax-code.command';
import { UpdateTaxCodeDto } from '../update-tax-code/update-tax-code.dto';
import { InvoicingReadModel } from '../infrastructure/invoicing.read-model';
import { TaxCodeView, Versioned } from '../infrastructure/streams';
import { TaxCodeDto, TaxCodePageDto } from './invoice-detail.dto';
import { readQuery } from './params';

const ETAG_HEADER = { ETag: { description: 'The tax code version, for If-Match.', schema: { type: 'string', example: '"1"' } } };
const CODE = { name: 'code', description: 'The tax code (case-sensitive; URL-encode special characters).' };

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
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a tax code' })
  @ApiResponse({ status: 201, description: 'The new tax code.', type: TaxCodeDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 409, ...problemResponse('The code already exists in this environment (tax-code-exists)') })
  @ApiResponse({ status: 422, ...problemResponse('Invalid code, rate (0 to 1, 4 decimals) or taxable') })
  async create(@Caller() caller: CallerContext, @Body() body: CreateTaxCodeDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const result = await this.commands.execute<CreateTaxCodeCommand, Versioned<TaxCodeView>>(new CreateTaxCodeCommand(caller, body, commandMetadata(this.clock)));
    return answer(reply, result);
  }

  @Get()
  @ApiOperation({ summary: 'List tax codes', description: 'Ordered by code, keyset paged with an opaque pageToken.' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'pageToken', required: false, schema: { type: 'string' } })
  @ApiResponse({ status: 200, description: '`{items, nextPageToken}`; nextPageToken is null on the last page.', type: TaxCodePageDto })
  async list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>) {
    const q = readQuery(query, ['limit', 'pageToken']);
    return this.readModel.taxCodes(caller.environmentId, parseLimit(q.limit), q.pageToken);
  }

  @Get(':code')
  @ApiOperation({ summary: 'Get a tax code' })
  @ApiParam(CODE)
  @ApiResponse({ status: 200, description: 'The tax code.', type: TaxCodeDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such tax code in this environment') })
  async get(@Caller() caller: CallerContext, @Param('code') code: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const found = await this.readModel.taxCode(caller.environmentId, code);
    if (!found) throw new NotFoundError('Tax code', code);
    return answer(reply, found);
  }

  @Put(':code')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a tax code', description: 'Omitted fields are kept. Draft invoices show and are booked at the new rate and taxability at once; booked invoices keep the rate they were booked with, and credit notes credit at the rates of the invoice they credit.' })
  @ApiParam(CODE)
  @ApiHeader({ name: 'if-match', required: false, description: 'An ETag from an earlier response; a stale one is a 409.' })
  @ApiResponse({ status: 200, description: 'The tax code.', type: TaxCodeDto, headers: ETAG_HEADER })
  @ApiResponse({ status: 404, ...problemResponse('No such tax code in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('Stale If-Match or a concurrent write (version-conflict)') })
  async update(
    @Caller() caller: CallerContext,
    @Param('code') code: string,
    @Body() body: UpdateTaxCodeDto,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const result = await this.commands.execute<UpdateTaxCodeCommand, Versioned<TaxCodeView>>(
      new UpdateTaxCodeCommand(caller, { code, rate: body.rate, taxable: body.taxable, description: body.description }, ifMatch, commandMetadata(this.clock)),
    );
    return answer(reply, result);
  }
}

function answer(reply: FastifyReply, { view, version }: Versioned<TaxCodeView>): TaxCodeView {
  reply.header('etag', etagFor(version));
  return view;
}
