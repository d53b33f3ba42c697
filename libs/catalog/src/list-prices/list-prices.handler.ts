import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Page } from '@billing/platform';
import { PriceView } from '../domain';
import { CatalogReadModel } from '../read-model/catalog-read-model';
import { ListPricesQuery } from './list-prices.query';

@QueryHandler(ListPricesQuery)
export class ListPricesHandler implements IQueryHandler<ListPricesQuery> {
  constructor(private readonly readModel: CatalogReadModel) {}

  execute({ environmentId, page, filter }: ListPricesQuery): Promise<Page<PriceView>> {
    return this.readModel.listPrices(environmentId, page, filter);
  }
}
