import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Written } from '@billing/event-store';
import { Payment } from '../domain';
import { PaymentFlow } from '../payment-flow';
import { RefundPaymentCommand } from './refund-payment.command';

/**
 * Reserves the refund on the payment's stream (concurrent refunds can never
 * together exceed the payment), asks the provider's gateway to make it and
 * records the outcome: PaymentFlow.refund.
 */
@CommandHandler(RefundPaymentCommand)
export class RefundPaymentHandler implements ICommandHandler<RefundPaymentCommand, Written<Payment>> {
  constructor(private readonly flow: PaymentFlow) {}

  execute({ environmentId, paymentId, amount, context, refundId }: RefundPaymentCommand): Promise<Written<Payment>> {
    return this.flow.refund(environmentId, paymentId, { refundId: refundId ?? context.meta.newId(), amount }, context);
  }
}
