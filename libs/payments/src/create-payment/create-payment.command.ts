import { CommandContext } from '@billing/event-store';
import { PaymentRequest } from '../payment-flow';

export class CreatePaymentCommand {
  constructor(
    readonly environmentId: string,
    readonly request: PaymentRequest,
    readonly context: CommandContext,
  ) {}
}
