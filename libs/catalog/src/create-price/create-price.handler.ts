import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { eventMetadataFor } from '@billing/platform';
import { foldEvents, ValidationError } from '@billing/shared-kernel';
import { decideCreatePrice, priceEvolver, toPriceView } from '../domain';
import { priceStream, PriceWriteResult } from '../catalog-streams';
import { CatalogReadModel } from '../read-model/catalog-read-model';
import { CreatePriceCommand } from './create-price.command';

@CommandHandler(CreatePriceCommand)
export class CreatePriceHandler implements ICommandHandler<CreatePriceCommand> {
  constructor(
    private readonly store: AggregateStore,
    private readonly readModel: CatalogReadModel,
  ) {}

  async execute({ caller, body, meta }: CreatePriceCommand): Promise<PriceWriteResult> {
    const priceId = meta.newId();
    const stream = priceStream(caller.environmentId, priceId);
    const { state } = await this.store.load(stream, priceEvolver);
    const events = decideCreatePrice({ priceId, input: body }, state, meta);
    // A price may point at a product of its own environment only (another environment's id does not exist here).
    const productId = events[0].data.productId;
    if (productId !== null && !(await this.readModel.productExists(caller.environmentId, productId))) {
      throw ValidationError.at('/productId', `no product ${productId} exists in this environment`);
    }
    const result = await this.store.append(
      [{ stream, expectedVersion: 'no_stream', events: toNewEvents(events, meta) }],
      eventMetadataFor(caller),
    );
    return { price: toPriceView(foldEvents(priceEvolver, events))!, version: result.nextVersions[0] };
  }
}
