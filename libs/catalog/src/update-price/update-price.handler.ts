import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { assertIfMatch, eventMetadataFor } from '@billing/platform';
import { NotFoundError } from '@billing/shared-kernel';
import { decideUpdatePrice, priceEvolver, toPriceView } from '../domain';
import { priceStream, PriceWriteResult } from '../catalog-streams';
import { UpdatePriceCommand } from './update-price.command';

@CommandHandler(UpdatePriceCommand)
export class UpdatePriceHandler implements ICommandHandler<UpdatePriceCommand> {
  constructor(private readonly store: AggregateStore) {}

  async execute({ caller, priceId, body, ifMatch, meta }: UpdatePriceCommand): Promise<PriceWriteResult> {
    const stream = priceStream(caller.environmentId, priceId);
    const { state, version } = await this.store.load(stream, priceEvolver);
    if (state.status === 'empty') throw new NotFoundError('Price', priceId);
    assertIfMatch(ifMatch, version);
    const events = decideUpdatePrice({ priceId, input: body }, state, meta);
    if (events.length === 0) return { price: toPriceView(state)!, version };
    const result = await this.store.append([{ stream, expectedVersion: version, events: toNewEvents(events, meta) }], eventMetadataFor(caller));
    return { price: toPriceView(events.reduce(priceEvolver.evolve, state))!, version: result.nextVersions[0] };
  }
}
