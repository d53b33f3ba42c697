import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { Payment } from '../domain';

export class RefundPaymentCommand extends Command<Written<Payment>> {
  constructor(
    readonly environmentId: string,
    readonly paymentId: string,
    readonly amount: unknown,
    readonly context: CommandContext,
    /** Chosen by the caller (made from an Idempotency-Key, so a retry finds its refund); absent: a new id. */
    readonly refundId?: string,
  ) {
    super();
  }
}
