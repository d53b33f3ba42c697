import { Module } from '@nestjs/common';
import { ArchivePriceHandler } from './archive-price/archive-price.handler';
import { registerCatalogProblemTypes } from './catalog.problems';
import { CreatePriceHandler } from './create-price/create-price.handler';
import { CreateProductHandler } from './create-product/create-product.handler';
import { GetPriceHandler } from './get-price/get-price.handler';
import { GetProductHandler } from './get-product/get-product.handler';
import { PricesController } from './http/prices.controller';
import { ProductsController } from './http/products.controller';
import { ListPricesHandler } from './list-prices/list-prices.handler';
import { ListProductsHandler } from './list-products/list-products.handler';
import { QuotePriceHandler } from './quote-price/quote-price.handler';
import { CatalogProjection } from './read-model/catalog.projection';
import { CatalogReadModel } from './read-model/catalog-read-model';
import { UpdatePriceHandler } from './update-price/update-price.handler';

registerCatalogProblemTypes();

/**
 * The catalog: prices (with their pricing maths) and the products they may
 * belong to. Writes go through the event store; reads come from the
 * `prices` and `products` read models kept by the `catalog.read-model` projection.
 */
@Module({
  controllers: [PricesController, ProductsController],
  providers: [
    CatalogReadModel,
    CatalogProjection,
    CreatePriceHandler,
    UpdatePriceHandler,
    ArchivePriceHandler,
    CreateProductHandler,
    GetPriceHandler,
    ListPricesHandler,
    QuotePriceHandler,
    GetProductHandler,
    ListProductsHandler,
  ],
  exports: [CatalogReadModel],
})
export class CatalogModule {}
