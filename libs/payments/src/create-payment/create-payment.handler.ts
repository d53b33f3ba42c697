import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Written } from '@billing/event-store';
import { Payment } from '../domain';
import { PaymentFlow } from '../payment-flow';
import { CreatePaymentCommand } from './create-payment.command';

@CommandHandler(CreatePaymentCommand)
export class CreatePaymentHandler implements ICommandHandler<CreatePaymentCommand, Written<Payment>> {
  constructor(private readonly flow: PaymentFlow) {}

  execute({ environmentId, request, context }: CreatePaymentCommand): Promise<Written<Payment>> {
    return this.flow.pay(environmentId, request, context);
  }
}
