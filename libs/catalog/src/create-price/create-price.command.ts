import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { CreatePriceInput, ExistingPrice } from '../domain';

/** POST /prices, with the body already validated (validateCreatePrice). */
export class CreatePriceCommand extends Command<Written<ExistingPrice>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreatePriceInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
