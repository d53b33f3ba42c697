import { Query } from '@nestjs/cqrs';
import { PriceView } from '../domain';
import { Versioned } from '../read-model/catalog-read-model';

export class GetPriceQuery extends Query<Versioned<PriceView>> {
  constructor(
    readonly environmentId: string,
    readonly priceId: string,
  ) {
    super();
  }
}
