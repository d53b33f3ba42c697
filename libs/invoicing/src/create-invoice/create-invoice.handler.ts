import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { foldEvents, ValidationError } from '@billing/shared-kernel';
import { CustomerInput, decideCreateInvoice, invoiceCustomerOf, invoiceEvolver, InvoiceState, taxCodesNamedBy } from '../domain';
import { CustomerRecordHandler, CustomerRecordQuery } from '../customers/customer-record.query';
import { invoiceStream } from '../streams';
import { redeemInvoiceDiscounts, withLineProducts } from '../invoice-discounts/invoice-discounts';
import { TaxRegisterReader } from '../tax-register';
import { CreateInvoiceCommand, CreateInvoiceInput } from './create-invoice.command';

@CommandHandler(CreateInvoiceCommand)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly taxRegister: TaxRegisterReader,
    private readonly customers: CustomerRecordHandler,
  ) {}

  async execute({ environmentId, input, context, invoiceId: chosenId, discounts: requests }: CreateInvoiceCommand): Promise<Written<InvoiceState>> {
    const invoiceId = chosenId ?? context.meta.newId();
    const customer = await this.customerOf(environmentId, input);
    const taxes = await this.taxRegister.read(environmentId, taxCodesNamedBy(input.items));
    const stream = invoiceStream(environmentId, invoiceId);
    if (requests.length === 0 && !input.items?.some((item) => item.priceId != null)) {
      const { version, state } = await this.commands.handle(
        stream,
        invoiceEvolver,
        (state) => decideCreateInvoice({ ...input, customer, invoiceId, taxes }, state, context.meta),
        context,
        { newStream: true },
      );
      return { id: invoiceId, version, state };
    }
    // Coupons are redeemed with the draft, each appended at the version loaded: a limit holds under concurrency (retried on a conflict).
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const items = await withLineProducts(session, environmentId, input.items);
      const currency = typeof input.currency === 'string' ? input.currency : '';
      const discounts = await redeemInvoiceDiscounts(session, environmentId, invoiceId, currency, requests, [], context.meta);
      const events = decideCreateInvoice({ ...input, items, customer, invoiceId, taxes, discounts }, invoiceEvolver.initialState(), context.meta);
      const after = foldEvents(invoiceEvolver, events);
      return { id: invoiceId, version: session.append(stream, events, after), state: after };
    });
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
    // Never refused because the read model lags the log (see CustomerRecordHandler).
    const record = await this.customers.execute(new CustomerRecordQuery(environmentId, customerId));
    if (record === null) throw ValidationError.at('/customerId', 'names no customer of this environment');
    if (record.status === 'archived') throw ValidationError.at('/customerId', 'names a deleted (archived) customer');
    return invoiceCustomerOf(record);
  }
}
