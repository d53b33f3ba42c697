import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideCreateProduct, ExistingProduct, existingProduct, productEvolver } from '../domain';
import { productStream } from '../streams';
import { CreateProductCommand } from './create-product.command';

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand, Written<ExistingProduct>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context }: CreateProductCommand): Promise<Written<ExistingProduct>> {
    const productId = context.meta.newId();
    const { state, version } = await this.commands.handle(
      productStream(environmentId, productId),
      productEvolver,
      (current) => decideCreateProduct({ productId, input }, current, context.meta),
      context,
      { newStream: true },
    );
    return { id: productId, version, state: existingProduct(state, productId) };
  }
}
