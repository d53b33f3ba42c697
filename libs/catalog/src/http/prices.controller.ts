import { Body, Controller, Get, Headers, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, CallerContext, Clock, commandMetadata, etagFor, Page, problemResponse, ResourceIdPipe } from '@billing/platform';
import { PriceView, Quote } from '../domain';
import { ArchivePriceCommand } from '../archive-price/archive-price.command';
import { CreatePriceCommand } from '../create-price/create-price.command';
import { CreatePriceBody } from '../create-price/create-price.dto';
import { GetPriceQuery } from '../get-price/get-price.query';
import { ListPricesQuery } from '../list-prices/list-prices.query';
import { QuotePriceQuery } from '../quote-price/quote-price.query';
import { QuoteDto, QuotePriceBody } from '../quote-price/quote-price.dto';
import { UpdatePriceCommand } from '../update-price/update-price.command';
import { UpdatePriceBody } from '../update-price/update-price.dto';
import { PriceDto, PricePageDto } from './price.dto';
import { assertNoInput, parsePriceListQuery, readListQuery } from './request-parsing';

const PRICE_ID = { name: 'priceId', format: 'uuid', description: 'the price id' } as const;
const IF_MATCH = {
  name: 'if-match',
  required: false,
  description: 'The ETag of the version the change is based on (e.g. "3"); a stale one is a 409. Omit to apply to the current version.',
};
const ETAG = { etag: { description: 'the version of the price, for If-Match', schema: { type: 'string', example: '"1"' } } };

/**
 * Prices. Request bodies are taken as they arrive (`unknown`, not validated
 * by the global ValidationPipe) and validated by the domain, which reports
 * every problem, unknown properties included, with a JSON pointer.
 */
@ApiTags('prices')
@Controller('prices')
export class PricesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a price', description: 'Answers 201 with the Price, its ETag and its Location.' })
  @ApiBody({ type: CreatePriceBody })
  @ApiResponse({ status: 201, description: 'Created', type: PriceDto, headers: ETAG })
  @ApiResponse({ status: 422, ...problemResponse('Invalid body (every field error with its JSON pointer), or productId names no product of this environment') })
  async create(@Caller() caller: CallerContext, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<PriceView> {
    const { price, version } = await this.commands.execute(new CreatePriceCommand(caller, body, commandMetadata(this.clock)));
    reply.header('etag', etagFor(version)).header('location', `/prices/${price.id}`);
    return price;
  }

  @Get()
  @ApiOperation({ summary: 'List prices', description: 'Newest first, keyset paging.' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'pageToken', required: false, description: 'nextPageToken of the previous page' })
  @ApiQuery({ name: 'archived', required: false, schema: { type: 'boolean' }, description: 'only archived (true) or only active (false) prices' })
  @ApiQuery({ name: 'productId', required: false, schema: { type: 'string', format: 'uuid' }, description: 'only prices of this product' })
  @ApiResponse({ status: 200, description: 'A page of prices', type: PricePageDto })
  @ApiResponse({ status: 422, ...problemResponse('Invalid, repeated or unknown query parameter (pointer /query/<name>)') })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<PriceView>> {
    const { page, filter } = parsePriceListQuery(readListQuery(query, ['limit', 'pageToken', 'archived', 'productId']));
    return this.queries.execute(new ListPricesQuery(caller.environmentId, page, filter));
  }

  @Get(':priceId')
  @ApiOperation({ summary: 'Get a price' })
  @ApiParam(PRICE_ID)
  @ApiResponse({ status: 200, description: 'The price', type: PriceDto, headers: ETAG })
  @ApiResponse({ status: 404, ...problemResponse('No such price in this environment') })
  async get(@Caller() caller: CallerContext, @Param('priceId', new ResourceIdPipe('Price')) priceId: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const { view, version } = await this.queries.execute(new GetPriceQuery(caller.environmentId, priceId));
    reply.header('etag', etagFor(version));
    return view;
  }

  @Put(':priceId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Update a price',
    description: 'Changes name, termCount, description and/or pricing; omitted fields keep their values; any other property is a 422.',
  })
  @ApiParam(PRICE_ID)
  @ApiHeader(IF_MATCH)
  @ApiBody({ type: UpdatePriceBody })
  @ApiResponse({ status: 200, description: 'The updated price', type: PriceDto, headers: ETAG })
  @ApiResponse({ status: 404, ...problemResponse('No such price in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('The price is archived (price-archived), or If-Match is stale (version-conflict)') })
  @ApiResponse({ status: 422, ...problemResponse('Invalid body (every field error with its JSON pointer)') })
  async update(
    @Caller() caller: CallerContext,
    @Param('priceId', new ResourceIdPipe('Price')) priceId: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PriceView> {
    const { price, version } = await this.commands.execute(new UpdatePriceCommand(caller, priceId, body, ifMatch, commandMetadata(this.clock)));
    reply.header('etag', etagFor(version));
    return price;
  }

  @Put(':priceId/archive')
  @HttpCode(200)
  @ApiOperation({ summary: 'Archive a price', description: 'No body (or {}). An archived price can no longer be updated; archiving twice is a 409.' })
  @ApiParam(PRICE_ID)
  @ApiHeader(IF_MATCH)
  @ApiResponse({ status: 200, description: 'The archived price (archived: true)', type: PriceDto, headers: ETAG })
  @ApiResponse({ status: 404, ...problemResponse('No such price in this environment') })
  @ApiResponse({ status: 409, ...problemResponse('Already archived (price-archived), or If-Match is stale (version-conflict)') })
  async archive(
    @Caller() caller: CallerContext,
    @Param('priceId', new ResourceIdPipe('Price')) priceId: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PriceView> {
    assertNoInput(body);
    const { price, version } = await this.commands.execute(new ArchivePriceCommand(caller, priceId, ifMatch, commandMetadata(this.clock)));
    reply.header('etag', etagFor(version));
    return price;
  }

  @Post(':priceId/quote')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Preview what a quantity of a price costs',
    description: 'Applies the price model to the quantity in one of the price currencies; nothing is stored.',
  })
  @ApiParam(PRICE_ID)
  @ApiBody({ type: QuotePriceBody })
  @ApiResponse({ status: 200, description: 'The amount', type: QuoteDto })
  @ApiResponse({ status: 404, ...problemResponse('No such price in this environment') })
  @ApiResponse({ status: 422, ...problemResponse('Invalid body, or a currency the price has no pricing in (pointer /currency)') })
  quote(@Caller() caller: CallerContext, @Param('priceId', new ResourceIdPipe('Price')) priceId: string, @Body() body: unknown): Promise<Quote> {
    return this.queries.execute(new QuotePriceQuery(caller.environmentId, priceId, body));
  }
}

