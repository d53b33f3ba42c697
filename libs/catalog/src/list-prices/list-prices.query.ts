import { Query } from '@nestjs/cqrs';
import { Page } from '@billing/platform';
import { PriceView } from '../domain';
import { PageRequest, PriceFilter } from '../read-model/catalog-read-model';

export class ListPricesQuery extends Query<Page<PriceView>> {
  constructor(
    readonly environmentId: string,
    readonly page: PageRequest,
    readonly filter: PriceFilter,
  ) {
    super();
  }
}
