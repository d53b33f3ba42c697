import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, StreamRef, Written } from '@billing/event-store';
import { decideUpdateInvoice, invoiceEvolver, InvoiceState, taxCodesNamedBy, taxCodesOf } from '../domain';
import { invoiceStream } from '../streams';
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
    // The register for the codes the new lines name or, items omitted, the kept lines name (they are written at today's rates).
    const codes = input.items === undefined ? await this.codesOfCurrentLines(stream) : taxCodesNamedBy(input.items);
    const taxes = await this.taxRegister.read(environmentId, codes);
    const { version, state } = await this.commands.handle(
      stream,
      invoiceEvolver,
      (state) => decideUpdateInvoice({ ...input, invoiceId, taxes }, state, context.meta),
      context,
      { expectedVersion },
    );
    return { id: invoiceId, version, state };
  }

  private async codesOfCurrentLines(stream: StreamRef): Promise<string[]> {
    const { state } = await this.commands.load(stream, invoiceEvolver);
    return state.status === 'none' ? [] : taxCodesOf(state);
  }
}
