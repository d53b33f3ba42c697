import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@billing/shared-kernel';
import { PriceView } from '../domain';
import { CatalogReadModel, Versioned } from '../read-model/catalog-read-model';
import { GetPriceQuery } from './get-price.query';

@QueryHandler(GetPriceQuery)
export class GetPriceHandler implements IQueryHandler<GetPriceQuery> {
  constructor(private readonly readModel: CatalogReadModel) {}

  async execute({ environmentId, priceId }: GetPriceQuery): Promise<Versioned<PriceView>> {
    const price = await this.readModel.findPrice(environmentId, priceId);
    if (!price) throw new NotFoundError('Price', priceId);
    return price;
  }
}
