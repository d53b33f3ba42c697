import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { customerEvolver, decideUpdateInvoice, invoiceCustomerOf, invoiceEvolver, InvoiceState, taxCodesNamedBy, taxCodesOf } from '../domain';
import { customerStream, invoiceStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { UpdateInvoiceCommand } from './update-invoice.command';

@CommandHandler(UpdateInvoiceCommand)
export class UpdateInvoiceHandler implements ICommandHandler<UpdateInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly taxRegister: TaxRegisterReader,
  ) {}

  async execute({ environmentId, invoiceId, input, context, expectedVersion }: UpdateInvoiceCommand): Promise<Written<InvoiceState>> {
    const stream = invoiceStream(environmentId, invoiceId);
    const { state: current } = await this.commands.load(stream, invoiceEvolver);
    // The register for the codes the new lines name or, items omitted, the kept lines name (they are written at today's rates).
    const codes = input.items === undefined ? (current.status === 'none' ? [] : taxCodesOf(current)) : taxCodesNamedBy(input.items);
    const taxes = await this.taxRegister.read(environmentId, codes);
    // A draft made out to a customer record (which it never changes) takes the record's snapshot as it is now.
    const customerId = current.status === 'none' ? null : current.customerId;
    const record = customerId == null ? null : (await this.commands.load(customerStream(environmentId, customerId), customerEvolver)).state;
    const customer = record && record.status !== 'none' ? invoiceCustomerOf(record) : undefined;
    const { version, state } = await this.commands.handle(
      stream,
      invoiceEvolver,
      (state) => decideUpdateInvoice({ ...input, invoiceId, taxes, customer }, state, context.meta),
      context,
      { expectedVersion },
    );
    return { id: invoiceId, version, state };
  }
}
