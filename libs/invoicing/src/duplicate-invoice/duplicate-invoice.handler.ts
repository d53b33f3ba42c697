import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, toNewEvents } from '@billing/event-store';
import { decideDuplicateInvoice, invoiceEvolver, InvoiceState, taxCodesOf } from '../domain';
import { invoiceStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { Written } from '../written';
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
    const { meta, metadata } = context;
    const newInvoiceId = meta.newId();
    const sourceStream = invoiceStream(environmentId, invoiceId);
    const { version, copy } = await this.commands.transaction(async (session) => {
      const source = await session.load(sourceStream, invoiceEvolver, expectedVersion);
      // A copy is a new draft, priced at the current rates of its codes (a credit note keeps the source's).
      const taxes = source.state.status === 'none' ? new Map() : await this.taxRegister.read(environmentId, taxCodesOf(source.state), session.tx);
      const { sourceEvents, newStreamEvents } = decideDuplicateInvoice({ invoiceId, newInvoiceId, reverse, taxes }, source.state, meta);
      const { nextVersions } = await session.append(
        [
          { stream: sourceStream, expectedVersion: source.version, events: toNewEvents(sourceEvents, meta) },
          { stream: invoiceStream(environmentId, newInvoiceId), expectedVersion: 'no_stream', events: toNewEvents(newStreamEvents, meta) },
        ],
        metadata,
      );
      return { version: nextVersions[1], copy: newStreamEvents.reduce(invoiceEvolver.evolve, invoiceEvolver.initialState()) };
    });
    return { id: newInvoiceId, version, state: copy };
  }
}
