import { Module } from '@nestjs/common';
import { ArchivePriceHandler } from './archive-price/archive-price.handler';
import { CreatePriceHandler } from './create-price/create-price.handler';
import { CreateProductHandler } from './create-product/create-product.handler';
import { PricesController } from './http/prices.controller';
import { ProductsController } from './http/products.controller';
import { CatalogReadModel } from './read-model/catalog-read-model';
import { UpdatePriceHandler } from './update-price/update-price.handler';

/**
 * The catalog's Nest wiring: controllers, the command handlers (each one
 * call of the command path) and the reads of its read model. Everything else
 * the app needs is in `catalogContext`.
 */
@Module({
  controllers: [PricesController, ProductsController],
  providers: [CatalogReadModel, CreatePriceHandler, UpdatePriceHandler, ArchivePriceHandler, CreateProductHandler],
})
export class CatalogModule {}
