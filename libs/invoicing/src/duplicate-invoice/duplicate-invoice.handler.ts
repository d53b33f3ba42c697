import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { assertIfMatch, eventMetadataFor } from '@billing/platform';
import { decideDuplicateInvoice, invoiceEvolver, InvoiceView, taxCodesOf, toInvoiceView } from '../domain';
import { InvoicingReadModel } from '../infrastructure/invoicing.read-model';
import { existingInvoice, invoiceStream, Versioned } from '../infrastructure/streams';
import { DuplicateInvoiceCommand } from './duplicate-invoice.command';

/** Records the duplication on the source and creates the new invoice, atomically. Answers with the new invoice. */
@CommandHandler(DuplicateInvoiceCommand)
export class DuplicateInvoiceHandler implements ICommandHandler<DuplicateInvoiceCommand, Versioned<InvoiceView>> {
  constructor(
    private readonly store: AggregateStore,
    private readonly readModel: InvoicingReadModel,
  ) {}

  async execute({ caller, invoiceId, reverse, ifMatch, meta }: DuplicateInvoiceCommand): Promise<Versioned<InvoiceView>> {
    const stream = invoiceStream(caller.environmentId, invoiceId);
    const { state, version } = await this.store.load(stream, invoiceEvolver);
    const source = existingInvoice(state, invoiceId);
    assertIfMatch(ifMatch, version);
    const newInvoiceId = meta.newId();
    const newStream = invoiceStream(caller.environmentId, newInvoiceId);
    // A copy is a new draft: priced at the current rates of its codes (a credit note keeps the source's).
    const taxes = await this.readModel.taxRegister(caller.environmentId, taxCodesOf(source));
    const { sourceEvents, newStreamEvents } = decideDuplicateInvoice({ invoiceId, newInvoiceId, reverse, taxes }, state, meta);
    const result = await this.store.append(
      [
        { stream, expectedVersion: version, events: toNewEvents(sourceEvents, meta) },
        { stream: newStream, expectedVersion: 'no_stream', events: toNewEvents(newStreamEvents, meta) },
      ],
      eventMetadataFor(caller),
    );
    const created = newStreamEvents.reduce(invoiceEvolver.evolve, invoiceEvolver.initialState());
    return { view: toInvoiceView(existingInvoice(created, newInvoiceId)), version: result.nextVersions[1] };
  }
}
