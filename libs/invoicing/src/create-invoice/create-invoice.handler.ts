import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { ValidationError } from '@billing/shared-kernel';
import { CustomerInput, decideCreateInvoice, invoiceCustomerOf, invoiceEvolver, InvoiceState, taxCodesNamedBy } from '../domain';
import { CustomersReadModel } from '../customers/read-model/customers.read-model';
import { invoiceStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { CreateInvoiceCommand, CreateInvoiceInput } from './create-invoice.command';

@CommandHandler(CreateInvoiceCommand)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly taxRegister: TaxRegisterReader,
    private readonly customers: CustomersReadModel,
  ) {}

  async execute({ environmentId, input, context, invoiceId: chosenId }: CreateInvoiceCommand): Promise<Written<InvoiceState>> {
    const invoiceId = chosenId ?? context.meta.newId();
    const customer = await this.customerOf(environmentId, input);
    const taxes = await this.taxRegister.read(environmentId, taxCodesNamedBy(input.items));
    const { version, state } = await this.commands.handle(
      invoiceStream(environmentId, invoiceId),
      invoiceEvolver,
      (state) => decideCreateInvoice({ ...input, customer, invoiceId, taxes }, state, context.meta),
      context,
      { newStream: true },
    );
    return { id: invoiceId, version, state };
  }

  /**
   * The inline customer, or the snapshot of the customer record `customerId`
   * names: one of this environment that is not archived (anything else is a
   * 422 at /customerId, another environment's customer included).
   */
  private async customerOf(environmentId: string, { customer, customerId }: CreateInvoiceInput): Promise<CustomerInput> {
    if (customer != null && customerId != null) {
      throw new ValidationError('Give the customer inline (customer) or as a customer record (customerId), not both.', [
        { pointer: '/customer', detail: 'not allowed together with customerId' },
        { pointer: '/customerId', detail: 'not allowed together with customer' },
      ]);
    }
    if (customerId == null) {
      if (customer == null) throw ValidationError.at('/customer', 'is required: the customer inline, or customerId naming a customer record');
      return customer;
    }
    const record = await this.customers.record(environmentId, customerId);
    if (record === null) throw ValidationError.at('/customerId', 'names no customer of this environment');
    if (record.status === 'archived') throw ValidationError.at('/customerId', 'names a deleted (archived) customer');
    return invoiceCustomerOf(record);
  }
}
