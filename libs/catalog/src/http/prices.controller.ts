import { Body, Controller, Get, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Written } from '@billing/event-store';
import { assertNoInput, Caller, CallerContext, Clock, commandContext, IfMatch, Page, ResourceIdPipe, resourceDocs, Versioned } from '@billing/platform';
import { NotFoundError } from '@billing/shared-kernel';
import { ExistingPrice, Quote, quotePrice, validateCreatePrice } from '../domain';
import { ArchivePriceCommand } from '../archive-price/archive-price.command';
import { CreatePriceCommand } from '../create-price/create-price.command';
import { CreatePriceBody } from '../create-price/create-price.dto';
import { QuoteDto, QuotePriceBody } from '../quote-price/quote-price.dto';
import { CatalogReadModel } from '../read-model/catalog-read-model';
import { UpdatePriceCommand } from '../update-price/update-price.command';
import { UpdatePriceBody } from '../update-price/update-price.dto';
import { PriceView, toPriceView } from '../views';
import { PriceDto, PricePageDto } from './price.dto';
import { parsePriceListQuery } from './request-parsing';

const PRICE_ID = { name: 'priceId', format: 'uuid', description: 'the price id' } as const;
/** Path ids are uuids; anything else names no price: 404 like an unknown id. */
const PRICE_ID_PIPE = new ResourceIdPipe('price');
const IF_MATCH = {
  name: 'if-match',
  required: false,
  description: 'The ETag of the version the change is based on (e.g. "3"); a stale one is a 409. Omit to apply to the current version.',
};
const ETAG = { etag: { description: 'the version of the price, for If-Match', schema: { type: 'string', example: '"1"' } } };
const PRICE = resourceDocs({ type: PriceDto, headers: ETAG, id: PRICE_ID, ifMatch: IF_MATCH, notFound: 'No such price in this environment' });

/**
 * Prices. Request bodies are taken as they arrive (`unknown`, not validated
 * by the global ValidationPipe) and validated by the domain, which reports
 * every problem, unknown properties included, with a JSON pointer. Reads
 * answer from the read model; writes go through the command bus.
 */
@ApiTags('prices')
@Controller('prices')
export class PricesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: CatalogReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @PRICE.create({
    summary: 'Create a price',
    description: 'Answers 201 with the Price, its ETag and its Location.',
    body: CreatePriceBody,
    answer: 'Created',
    invalid: 'Invalid body (every field error with its JSON pointer), or productId names no product of this environment',
  })
  async create(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<PriceView>> {
    const input = validateCreatePrice(body);
    const written = await this.commands.execute(new CreatePriceCommand(caller.environmentId, input, commandContext(caller, this.clock)));
    return answer(written, `/prices/${written.id}`);
  }

  @Get()
  @PRICE.list({
    summary: 'List prices',
    description: 'Newest first, keyset paging.',
    queries: [
      { name: 'archived', required: false, schema: { type: 'boolean' }, description: 'only archived (true) or only active (false) prices' },
      { name: 'productId', required: false, schema: { type: 'string', format: 'uuid' }, description: 'only prices of this product' },
    ],
    answer: 'A page of prices',
    type: PricePageDto,
  })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<PriceView>> {
    const { page, filter } = parsePriceListQuery(query);
    return this.readModel.listPrices(caller.environmentId, page, filter);
  }

  @Get(':priceId')
  @PRICE.read({ summary: 'Get a price', answer: 'The price' })
  get(@Caller() caller: CallerContext, @Param('priceId', PRICE_ID_PIPE) priceId: string): Promise<Versioned<PriceView>> {
    return this.find(caller, priceId);
  }

  @Put(':priceId')
  @PRICE.write({
    summary: 'Update a price',
    description: 'Changes name, termCount, description and/or pricing; omitted fields keep their values; any other property is a 422.',
    body: UpdatePriceBody,
    answer: 'The updated price',
    conflict: 'The price is archived (price-archived), or If-Match is stale (version-conflict)',
    invalid: 'Invalid body (every field error with its JSON pointer), or a malformed If-Match (/headers/if-match)',
  })
  async update(
    @Caller() caller: CallerContext,
    @Param('priceId', PRICE_ID_PIPE) priceId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<PriceView>> {
    return answer(
      await this.commands.execute(new UpdatePriceCommand(caller.environmentId, priceId, body, commandContext(caller, this.clock), expectedVersion)),
    );
  }

  @Put(':priceId/archive')
  @PRICE.action({
    summary: 'Archive a price',
    description: 'No body (or {}). An archived price can no longer be updated; archiving twice is a 409.',
    answer: 'The archived price (archived: true)',
    conflict: 'Already archived (price-archived), or If-Match is stale (version-conflict)',
  })
  async archive(
    @Caller() caller: CallerContext,
    @Param('priceId', PRICE_ID_PIPE) priceId: string,
    @Body() body: unknown,
    @IfMatch() expectedVersion: number | undefined,
  ): Promise<Versioned<PriceView>> {
    assertNoInput(body);
    return answer(await this.commands.execute(new ArchivePriceCommand(caller.environmentId, priceId, commandContext(caller, this.clock), expectedVersion)));
  }

  @Post(':priceId/quote')
  @PRICE.read({
    summary: 'Preview what a quantity of a price costs',
    description: 'Applies the price model to the quantity in one of the price currencies; nothing is stored.',
    body: QuotePriceBody,
    answer: 'The amount',
    type: QuoteDto,
    invalid: 'Invalid body, or a currency the price has no pricing in (pointer /currency)',
  })
  async quote(@Caller() caller: CallerContext, @Param('priceId', PRICE_ID_PIPE) priceId: string, @Body() body: unknown): Promise<Quote> {
    const { resource } = await this.find(caller, priceId);
    return quotePrice(resource, body);
  }

  private async find(caller: CallerContext, priceId: string): Promise<Versioned<PriceView>> {
    const price = await this.readModel.findPrice(caller.environmentId, priceId);
    if (!price) throw new NotFoundError('price', priceId);
    return price;
  }
}

/** A write's answer: the price as its command left it (not read back), with its version for the ETag. */
function answer({ version, state }: Written<ExistingPrice>, location?: string): Versioned<PriceView> {
  return new Versioned(toPriceView(state), version, location);
}
