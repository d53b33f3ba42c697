import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { eventMetadataFor } from '@billing/platform';
import { foldEvents } from '@billing/shared-kernel';
import { decideCreateProduct, productEvolver, toProductView } from '../domain';
import { productStream, ProductWriteResult } from '../catalog-streams';
import { CreateProductCommand } from './create-product.command';

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand> {
  constructor(private readonly store: AggregateStore) {}

  async execute({ caller, body, meta }: CreateProductCommand): Promise<ProductWriteResult> {
    const productId = meta.newId();
    const stream = productStream(caller.environmentId, productId);
    const { state } = await this.store.load(stream, productEvolver);
    const events = decideCreateProduct({ productId, input: body }, state, meta);
    const result = await this.store.append(
      [{ stream, expectedVersion: 'no_stream', events: toNewEvents(events, meta) }],
      eventMetadataFor(caller),
    );
    return { product: toProductView(foldEvents(productEvolver, events))!, version: result.nextVersions[0] };
  }
}
