import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { CreatePriceInput } from '../domain';
import { PriceView } from '../views';

/** POST /prices, with the body already validated (validateCreatePrice). */
export class CreatePriceCommand extends Command<Versioned<PriceView>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreatePriceInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
