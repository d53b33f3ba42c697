import { Query } from '@nestjs/cqrs';
import { Page } from '@billing/platform';
import { ProductView } from '../domain';
import { PageRequest } from '../read-model/catalog-read-model';

export class ListProductsQuery extends Query<Page<ProductView>> {
  constructor(
    readonly environmentId: string,
    readonly page: PageRequest,
  ) {
    super();
  }
}
