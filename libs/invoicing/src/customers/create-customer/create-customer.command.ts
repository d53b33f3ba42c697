import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Customer, CustomerFieldsInput } from '../../domain';

export class CreateCustomerCommand extends Command<Written<Customer>> {
  constructor(
    readonly environmentId: string,
    readonly input: CustomerFieldsInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
