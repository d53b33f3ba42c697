import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideCreateProduct, existingProduct, productEvolver } from '../domain';
import { productStream } from '../streams';
import { ProductView, toProductView } from '../views';
import { CreateProductCommand } from './create-product.command';

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand, Versioned<ProductView>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context }: CreateProductCommand): Promise<Versioned<ProductView>> {
    const productId = context.meta.newId();
    const { state, version } = await this.commands.handle(
      productStream(environmentId, productId),
      productEvolver,
      (current) => decideCreateProduct({ productId, input }, current, context.meta),
      context,
      { newStream: true },
    );
    return new Versioned(toProductView(existingProduct(state, productId)), version);
  }
}
