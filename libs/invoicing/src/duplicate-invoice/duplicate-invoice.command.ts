import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';

export class DuplicateInvoiceCommand {
  constructor(
    readonly caller: CallerContext,
    readonly invoiceId: string,
    readonly reverse: boolean,
    readonly ifMatch: string | undefined,
    readonly meta: CommandMetadata,
  ) {}
}
