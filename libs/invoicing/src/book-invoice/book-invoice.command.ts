import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';

export class BookInvoiceCommand {
  constructor(
    readonly caller: CallerContext,
    readonly invoiceId: string,
    readonly date: string | null | undefined,
    readonly ifMatch: string | undefined,
    readonly meta: CommandMetadata,
  ) {}
}
