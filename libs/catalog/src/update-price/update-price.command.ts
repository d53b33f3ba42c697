import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { ExistingPrice } from '../domain';

/**
 * PUT /prices/{priceId}: partial update of name, termCount, description and
 * pricing. `body` is the request body as received: its rules depend on the
 * price (model, purchase), so decideUpdatePrice validates it after the 404
 * and 409 checks, reporting every field error at once.
 */
export class UpdatePriceCommand extends Command<Written<ExistingPrice>> {
  constructor(
    readonly environmentId: string,
    readonly priceId: string,
    readonly body: unknown,
    readonly context: CommandContext,
    /** From If-Match: the version the change is based on; undefined applies it to the current version. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
