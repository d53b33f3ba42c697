import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { decideRefund, Payment, paymentEvolver } from '../domain';
import { paymentStream } from '../streams';
import { RefundPaymentCommand } from './refund-payment.command';

/**
 * A refund is decided on the payment's folded state and appended with the
 * version it was decided on: concurrent refunds can never together exceed
 * the payment (the loser decides again on fresh state, once).
 */
@CommandHandler(RefundPaymentCommand)
export class RefundPaymentHandler implements ICommandHandler<RefundPaymentCommand, { payment: Payment; version: number }> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, paymentId, amount, context }: RefundPaymentCommand): Promise<{ payment: Payment; version: number }> {
    const refundId = context.meta.newId();
    const { state, version } = await this.commands.handle(
      paymentStream(environmentId, paymentId),
      paymentEvolver,
      (current) => decideRefund({ refundId, amount, paymentId }, current, context.meta),
      context,
      { retryOnConflict: true },
    );
    return { payment: state as Payment, version };
  }
}
