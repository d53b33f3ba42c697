import { CommandContext } from '@billing/event-store';

export class RefundPaymentCommand {
  constructor(
    readonly environmentId: string,
    readonly paymentId: string,
    readonly amount: unknown,
    readonly context: CommandContext,
  ) {}
}
