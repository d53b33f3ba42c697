import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';
import { InvoiceCustomer } from '../domain';
import { RequestedLine } from '../infrastructure/invoicing.read-model';

export interface CreateInvoiceInput {
  readonly customer: InvoiceCustomer;
  readonly currency: string;
  readonly date?: string | null;
  readonly dueDate?: string | null;
  readonly memo?: string | null;
  readonly items?: readonly RequestedLine[] | null;
}

export class CreateInvoiceCommand {
  constructor(
    readonly caller: CallerContext,
    readonly input: CreateInvoiceInput,
    readonly meta: CommandMetadata,
  ) {}
}
