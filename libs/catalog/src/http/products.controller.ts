import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { Written } from '@billing/event-store';
import { Caller, CallerContext, Clock, commandContext, Page, ResourceIdPipe, resourceDocs, Versioned } from '@billing/platform';
import { NotFoundError } from '@billing/shared-kernel';
import { ExistingProduct, validateCreateProduct } from '../domain';
import { CreateProductCommand } from '../create-product/create-product.command';
import { CreateProductBody } from '../create-product/create-product.dto';
import { CatalogReadModel } from '../read-model/catalog-read-model';
import { ProductView, toProductView } from '../views';
import { ProductDto, ProductPageDto } from './product.dto';
import { parseProductListQuery } from './request-parsing';

const ETAG = { etag: { description: 'the version of the product', schema: { type: 'string', example: '"1"' } } };
/** Path ids are uuids; anything else names no product: 404 like an unknown id. */
const PRODUCT_ID_PIPE = new ResourceIdPipe('product');
const PRODUCT = resourceDocs({ type: ProductDto, headers: ETAG, id: { name: 'productId', format: 'uuid' }, notFound: 'No such product in this environment' });

/** Products: what prices may point at (`productId`). Bodies are validated by the domain (see PricesController). */
@ApiTags('products')
@Controller('products')
export class ProductsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly readModel: CatalogReadModel,
    private readonly clock: Clock,
  ) {}

  @Post()
  @PRODUCT.create({
    summary: 'Create a product',
    description: 'Answers 201 with the Product, its ETag and its Location.',
    body: CreateProductBody,
    answer: 'Created',
    invalid: 'Invalid body (every field error with its JSON pointer)',
  })
  async create(@Caller() caller: CallerContext, @Body() body: unknown): Promise<Versioned<ProductView>> {
    const input = validateCreateProduct(body);
    const written = await this.commands.execute(new CreateProductCommand(caller.environmentId, input, commandContext(caller, this.clock)));
    return answer(written, `/products/${written.id}`);
  }

  @Get()
  @PRODUCT.list({ summary: 'List products', description: 'Newest first, keyset paging.', answer: 'A page of products', type: ProductPageDto })
  list(@Caller() caller: CallerContext, @Query() query: Record<string, unknown>): Promise<Page<ProductView>> {
    return this.readModel.listProducts(caller.environmentId, parseProductListQuery(query));
  }

  @Get(':productId')
  @PRODUCT.read({ summary: 'Get a product', answer: 'The product' })
  async get(@Caller() caller: CallerContext, @Param('productId', PRODUCT_ID_PIPE) productId: string): Promise<Versioned<ProductView>> {
    const product = await this.readModel.findProduct(caller.environmentId, productId);
    if (!product) throw new NotFoundError('product', productId);
    return product;
  }
}

/** A write's answer: the product as its command left it, with its version for the ETag. */
function answer({ version, state }: Written<ExistingProduct>, location?: string): Versioned<ProductView> {
  return new Versioned(toProductView(state), version, location);
}
