import { Query } from '@nestjs/cqrs';
import { ProductView } from '../domain';
import { Versioned } from '../read-model/catalog-read-model';

export class GetProductQuery extends Query<Versioned<ProductView>> {
  constructor(
    readonly environmentId: string,
    readonly productId: string,
  ) {
    super();
  }
}
