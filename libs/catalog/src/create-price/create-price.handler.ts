import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideCreatePrice, ExistingPrice, existingPrice, priceEvolver, productEvolver } from '../domain';
import { BillableMetricExistsQuery } from '../ports';
import { priceStream, productStream } from '../streams';
import { CreatePriceCommand } from './create-price.command';

/**
 * A new stream under a fresh id. The product a price names is looked up in
 * the event store (products are never deleted, so it cannot vanish before
 * the price is written). An event_based price's metric is asked of the
 * context that owns metrics through the catalog's port (metrics are never
 * deleted either).
 */
@CommandHandler(CreatePriceCommand)
export class CreatePriceHandler implements ICommandHandler<CreatePriceCommand, Written<ExistingPrice>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly queries: QueryBus,
  ) {}

  async execute({ environmentId, input, context }: CreatePriceCommand): Promise<Written<ExistingPrice>> {
    const priceId = context.meta.newId();
    const productExists = input.productId !== null && (await this.commands.load(productStream(environmentId, input.productId), productEvolver)).version > 0;
    const { metricCode } = input;
    const metricExists = metricCode !== undefined && (await this.queries.execute(new BillableMetricExistsQuery(environmentId, metricCode)));
    const { state, version } = await this.commands.handle(
      priceStream(environmentId, priceId),
      priceEvolver,
      (current) => decideCreatePrice({ priceId, input, productExists, metricExists }, current, context.meta),
      context,
      { newStream: true },
    );
    return { id: priceId, version, state: existingPrice(state, priceId) };
  }
}
