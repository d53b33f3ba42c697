import { CommandContext } from '@billing/event-store';

export class RefundPaymentCommand {
  constructor(
    readonly environmentId: string,
    readonly paymentId: string,
    readonly amount: unknown,
    readonly context: CommandContext,
    /** Chosen by the caller (made from an Idempotency-Key, so a retry finds its refund); absent: a new id. */
    readonly refundId?: string,
  ) {}
}
