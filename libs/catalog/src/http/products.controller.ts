import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Caller, CallerContext, Clock, commandMetadata, etagFor, Page, problemResponse, ResourceIdPipe } from '@billing/platform';
import { ProductView } from '../domain';
import { CreateProductCommand } from '../create-product/create-product.command';
import { CreateProductBody } from '../create-product/create-product.dto';
import { GetProductQuery } from '../get-product/get-product.query';
import { ListProductsQuery } from '../list-products/list-products.query';
import { ProductDto, ProductPageDto } from './product.dto';
import { parsePageRequest, readListQuery } from './request-parsing';

const ETAG = { etag: { description: 'the version of the product', schema: { type: 'string', example: '"1"' } } };

/** Products: what prices may point at (`productId`). Bodies are validated by the domain (see PricesController). */
@ApiTags('products')
@Controller('products')
export class ProductsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly clock: Clock,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a product' })
  @ApiBody({ type: CreateProductBody })
  @ApiResponse({ status: 201, description: 'Created', type: ProductDto, headers: ETAG })
  @ApiResponse({ status: 422, ...problemResponse('Invalid body (every field error with its JSON pointer)') })
  async create(@Caller() caller: CallerContext, @Body() body: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<ProductView> {
    const { product, version } = await this.commands.execute(new CreateProductCommand(caller, body, commandMetadata(this.clock)));
    reply.header('etag', etagFor(version)).header('location', `/products/${product.id}`);
    return product;
  }

  @Get()
  @ApiOperation({ summary: 'List products', description: 'Newest first, keyset paging.' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'pageToken', required: false, description: 'nextPageToken of the previous page' })
  @ApiResponse({ status: 200, description: 'A page of products', type: ProductPageDto })
  @ApiResponse({ status: 422, ...problemResponse('Invalid, repeated or unknown query parameter (pointer /query/<name>)') })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<ProductView>> {
    return this.queries.execute(new ListProductsQuery(caller.environmentId, parsePageRequest(readListQuery(query, ['limit', 'pageToken']))));
  }

  @Get(':productId')
  @ApiOperation({ summary: 'Get a product' })
  @ApiParam({ name: 'productId', format: 'uuid' })
  @ApiResponse({ status: 200, description: 'The product', type: ProductDto, headers: ETAG })
  @ApiResponse({ status: 404, ...problemResponse('No such product in this environment') })
  async get(@Caller() caller: CallerContext, @Param('productId', new ResourceIdPipe('Product')) productId: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const { view, version } = await this.queries.execute(new GetProductQuery(caller.environmentId, productId));
    reply.header('etag', etagFor(version));
    return view;
  }
}
