import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@billing/shared-kernel';
import { ProductView } from '../domain';
import { CatalogReadModel, Versioned } from '../read-model/catalog-read-model';
import { GetProductQuery } from './get-product.query';

@QueryHandler(GetProductQuery)
export class GetProductHandler implements IQueryHandler<GetProductQuery> {
  constructor(private readonly readModel: CatalogReadModel) {}

  async execute({ environmentId, productId }: GetProductQuery): Promise<Versioned<ProductView>> {
    const product = await this.readModel.findProduct(environmentId, productId);
    if (!product) throw new NotFoundError('Product', productId);
    return product;
  }
}
