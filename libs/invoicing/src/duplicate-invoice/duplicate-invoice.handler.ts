import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { foldEvents } from '@billing/shared-kernel';
import { decideDuplicateInvoice, invoiceEvolver, InvoiceState, taxCodesOf } from '../domain';
import { invoiceStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { DuplicateInvoiceCommand } from './duplicate-invoice.command';

/**
 * Records the duplication on the source and creates the new invoice, in one
 * transaction over both streams. Answers with the NEW invoice.
 */
@CommandHandler(DuplicateInvoiceCommand)
export class DuplicateInvoiceHandler implements ICommandHandler<DuplicateInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly taxRegister: TaxRegisterReader,
  ) {}

  async execute({ environmentId, invoiceId, reverse, context, expectedVersion }: DuplicateInvoiceCommand): Promise<Written<InvoiceState>> {
    const { meta } = context;
    const newInvoiceId = meta.newId();
    const sourceStream = invoiceStream(environmentId, invoiceId);
    return this.commands.run(context, 'reject', async (session) => {
      const source = await session.load(sourceStream, invoiceEvolver, expectedVersion);
      // A copy is a new draft, priced at the current rates of its codes (a credit note keeps the source's).
      const taxes = source.state.status === 'none' ? new Map() : await this.taxRegister.read(environmentId, taxCodesOf(source.state), session.tx);
      const { sourceEvents, newStreamEvents } = decideDuplicateInvoice({ invoiceId, newInvoiceId, reverse, taxes }, source.state, meta);
      session.append(sourceStream, sourceEvents);
      const version = session.append(invoiceStream(environmentId, newInvoiceId), newStreamEvents);
      return { id: newInvoiceId, version, state: foldEvents(invoiceEvolver, newStreamEvents) };
    });
  }
}
