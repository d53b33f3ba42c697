import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideArchivePrice, existingPrice, priceEvolver } from '../domain';
import { priceStream } from '../streams';
import { PriceView, toPriceView } from '../views';
import { ArchivePriceCommand } from './archive-price.command';

@CommandHandler(ArchivePriceCommand)
export class ArchivePriceHandler implements ICommandHandler<ArchivePriceCommand, Versioned<PriceView>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, priceId, context, expectedVersion }: ArchivePriceCommand): Promise<Versioned<PriceView>> {
    const { state, version } = await this.commands.handle(
      priceStream(environmentId, priceId),
      priceEvolver,
      (current) => decideArchivePrice({ priceId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return new Versioned(toPriceView(existingPrice(state, priceId)), version);
  }
}
