import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { CreateProductInput } from '../domain';
import { ProductView } from '../views';

/** POST /products, with the body already validated (validateCreateProduct). */
export class CreateProductCommand extends Command<Versioned<ProductView>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreateProductInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
