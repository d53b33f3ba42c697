import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { PaymentRequest } from '../payment-flow';
import { Payment } from '../domain';

export class CreatePaymentCommand extends Command<Written<Payment>> {
  constructor(
    readonly environmentId: string,
    readonly request: PaymentRequest,
    readonly context: CommandContext,
  ) {
    super();
  }
}
