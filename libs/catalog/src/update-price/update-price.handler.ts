import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideUpdatePrice, ExistingPrice, existingPrice, priceEvolver } from '../domain';
import { priceStream } from '../streams';
import { UpdatePriceCommand } from './update-price.command';

/** An update that changes nothing writes nothing and answers the current version. */
@CommandHandler(UpdatePriceCommand)
export class UpdatePriceHandler implements ICommandHandler<UpdatePriceCommand, Written<ExistingPrice>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, priceId, body, context, expectedVersion }: UpdatePriceCommand): Promise<Written<ExistingPrice>> {
    const { state, version } = await this.commands.handle(
      priceStream(environmentId, priceId),
      priceEvolver,
      (current) => decideUpdatePrice({ priceId, body }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: priceId, version, state: existingPrice(state, priceId) };
  }
}
