import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideArchivePrice, ExistingPrice, existingPrice, priceEvolver } from '../domain';
import { priceStream } from '../streams';
import { ArchivePriceCommand } from './archive-price.command';

@CommandHandler(ArchivePriceCommand)
export class ArchivePriceHandler implements ICommandHandler<ArchivePriceCommand, Written<ExistingPrice>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, priceId, context, expectedVersion }: ArchivePriceCommand): Promise<Written<ExistingPrice>> {
    const { state, version } = await this.commands.handle(
      priceStream(environmentId, priceId),
      priceEvolver,
      (current) => decideArchivePrice({ priceId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: priceId, version, state: existingPrice(state, priceId) };
  }
}
