import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { eventMetadataFor } from '@billing/platform';
import { decideCreateInvoice, invoiceEvolver, InvoiceView, toInvoiceView } from '../domain';
import { InvoicingReadModel } from '../infrastructure/invoicing.read-model';
import { existingInvoice, invoiceStream, Versioned } from '../infrastructure/streams';
import { CreateInvoiceCommand } from './create-invoice.command';

@CommandHandler(CreateInvoiceCommand)
export class CreateInvoiceHandler implements ICommandHandler<CreateInvoiceCommand, Versioned<InvoiceView>> {
  constructor(
    private readonly store: AggregateStore,
    private readonly readModel: InvoicingReadModel,
  ) {}

  async execute({ caller, input, meta }: CreateInvoiceCommand): Promise<Versioned<InvoiceView>> {
    const invoiceId = meta.newId();
    const stream = invoiceStream(caller.environmentId, invoiceId);
    const items = await this.readModel.resolveLines(caller.environmentId, input.items);
    const state = invoiceEvolver.initialState();
    const events = decideCreateInvoice({ ...input, invoiceId, items }, state, meta);
    const result = await this.store.append([{ stream, expectedVersion: 'no_stream', events: toNewEvents(events, meta) }], eventMetadataFor(caller));
    return { view: toInvoiceView(existingInvoice(events.reduce(invoiceEvolver.evolve, state), invoiceId)), version: result.nextVersions[0] };
  }
}
