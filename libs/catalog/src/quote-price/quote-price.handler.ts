import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@billing/shared-kernel';
import { Quote, quotePrice } from '../domain';
import { CatalogReadModel } from '../read-model/catalog-read-model';
import { QuotePriceQuery } from './quote-price.query';

@QueryHandler(QuotePriceQuery)
export class QuotePriceHandler implements IQueryHandler<QuotePriceQuery> {
  constructor(private readonly readModel: CatalogReadModel) {}

  async execute({ environmentId, priceId, body }: QuotePriceQuery): Promise<Quote> {
    const price = await this.readModel.findPrice(environmentId, priceId);
    if (!price) throw new NotFoundError('Price', priceId);
    return quotePrice(price.view, body);
  }
}
