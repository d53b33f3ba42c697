import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { assertIfMatch, eventMetadataFor } from '@billing/platform';
import { NotFoundError } from '@billing/shared-kernel';
import { decideArchivePrice, priceEvolver, toPriceView } from '../domain';
import { priceStream, PriceWriteResult } from '../catalog-streams';
import { ArchivePriceCommand } from './archive-price.command';

@CommandHandler(ArchivePriceCommand)
export class ArchivePriceHandler implements ICommandHandler<ArchivePriceCommand> {
  constructor(private readonly store: AggregateStore) {}

  async execute({ caller, priceId, ifMatch, meta }: ArchivePriceCommand): Promise<PriceWriteResult> {
    const stream = priceStream(caller.environmentId, priceId);
    const { state, version } = await this.store.load(stream, priceEvolver);
    if (state.status === 'empty') throw new NotFoundError('Price', priceId);
    assertIfMatch(ifMatch, version);
    const events = decideArchivePrice({ priceId }, state, meta);
    const result = await this.store.append([{ stream, expectedVersion: version, events: toNewEvents(events, meta) }], eventMetadataFor(caller));
    return { price: toPriceView(events.reduce(priceEvolver.evolve, state))!, version: result.nextVersions[0] };
  }
}
