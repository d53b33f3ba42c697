import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '@billing/platform';
import { ProductView } from '../domain';
import { CatalogReadModel } from '../read-model/catalog-read-model';
import { ListProductsQuery } from './list-products.query';

@QueryHandler(ListProductsQuery)
export class ListProductsHandler implements IQueryHandler<ListProductsQuery> {
  constructor(private readonly readModel: CatalogReadModel) {}

  execute({ environmentId, page }: ListProductsQuery): Promise<Page<ProductView>> {
    return this.readModel.listProducts(environmentId, page);
  }
}
