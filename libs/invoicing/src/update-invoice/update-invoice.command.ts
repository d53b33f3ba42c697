import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';
import { RequestedLine } from '../infrastructure/invoicing.read-model';

export interface UpdateInvoiceInput {
  readonly date: string;
  readonly currency: string | null;
  /** undefined keeps, null clears */
  readonly dueDate?: string | null;
  /** undefined keeps, null clears */
  readonly items?: readonly RequestedLine[] | null;
}

export class UpdateInvoiceCommand {
  constructor(
    readonly caller: CallerContext,
    readonly invoiceId: string,
    readonly input: UpdateInvoiceInput,
    readonly ifMatch: string | undefined,
    readonly meta: CommandMetadata,
  ) {}
}
