import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { decideUpdatePrice, existingPrice, priceEvolver } from '../domain';
import { priceStream } from '../streams';
import { PriceView, toPriceView } from '../views';
import { UpdatePriceCommand } from './update-price.command';

/** An update that changes nothing writes nothing and answers the current version. */
@CommandHandler(UpdatePriceCommand)
export class UpdatePriceHandler implements ICommandHandler<UpdatePriceCommand, Versioned<PriceView>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, priceId, body, context, expectedVersion }: UpdatePriceCommand): Promise<Versioned<PriceView>> {
    const { state, version } = await this.commands.handle(
      priceStream(environmentId, priceId),
      priceEvolver,
      (current) => decideUpdatePrice({ priceId, body }, current, context.meta),
      context,
      { expectedVersion },
    );
    return new Versioned(toPriceView(existingPrice(state, priceId)), version);
  }
}
