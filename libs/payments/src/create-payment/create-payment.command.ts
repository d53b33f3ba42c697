import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { PaymentRequest } from '../payment-flow';
import { Payment } from '../domain';

export class CreatePaymentCommand extends Command<{ payment: Payment; version: number }> {
  constructor(
    readonly environmentId: string,
    readonly request: PaymentRequest,
    readonly context: CommandContext,
  ) {
    super();
  }
}
