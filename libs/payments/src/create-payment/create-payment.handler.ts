import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Payment } from '../domain';
import { PaymentFlow } from '../payment-flow';
import { CreatePaymentCommand } from './create-payment.command';

@CommandHandler(CreatePaymentCommand)
export class CreatePaymentHandler implements ICommandHandler<CreatePaymentCommand, { payment: Payment; version: number }> {
  constructor(private readonly flow: PaymentFlow) {}

  execute({ environmentId, request, context }: CreatePaymentCommand): Promise<{ payment: Payment; version: number }> {
    return this.flow.pay(environmentId, request, context);
  }
}
