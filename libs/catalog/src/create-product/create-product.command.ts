import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { CreateProductInput, ExistingProduct } from '../domain';

/** POST /products, with the body already validated (validateCreateProduct). */
export class CreateProductCommand extends Command<Written<ExistingProduct>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreateProductInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
