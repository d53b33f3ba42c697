import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideCreateInvoice, invoiceEvolver, InvoiceState, taxCodesNamedBy } from '../domain';
import { invoiceStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { CreateInvoiceCommand } from './create-invoice.command';

@CommandHandler(CreateInvoiceCommand)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly taxRegister: TaxRegisterReader,
  ) {}

  async execute({ environmentId, input, context, invoiceId: chosenId }: CreateInvoiceCommand): Promise<Written<InvoiceState>> {
    const invoiceId = chosenId ?? context.meta.newId();
    const taxes = await this.taxRegister.read(environmentId, taxCodesNamedBy(input.items));
    const { version, state } = await this.commands.handle(
      invoiceStream(environmentId, invoiceId),
      invoiceEvolver,
      (state) => decideCreateInvoice({ ...input, invoiceId, taxes }, state, context.meta),
      context,
      { newStream: true },
    );
    return { id: invoiceId, version, state };
  }
}
