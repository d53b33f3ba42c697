import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { assertIfMatch, eventMetadataFor } from '@billing/platform';
import { decideUpdateInvoice, invoiceEvolver, InvoiceView, taxCodesOf, toInvoiceView } from '../domain';
import { InvoicingReadModel } from '../infrastructure/invoicing.read-model';
import { existingInvoice, invoiceStream, Versioned } from '../infrastructure/streams';
import { UpdateInvoiceCommand } from './update-invoice.command';

@CommandHandler(UpdateInvoiceCommand)
export class UpdateInvoiceHandler implements ICommandHandler<UpdateInvoiceCommand, Versioned<InvoiceView>> {
  constructor(
    private readonly store: AggregateStore,
    private readonly readModel: InvoicingReadModel,
  ) {}

  async execute({ caller, invoiceId, input, ifMatch, meta }: UpdateInvoiceCommand): Promise<Versioned<InvoiceView>> {
    const stream = invoiceStream(caller.environmentId, invoiceId);
    const { state, version } = await this.store.load(stream, invoiceEvolver);
    const invoice = existingInvoice(state, invoiceId);
    assertIfMatch(ifMatch, version);
    // Tax codes are only worth resolving for a draft: the decider refuses any other with 409 invoice-not-draft.
    const items = invoice.status === 'draft' ? await this.readModel.resolveLines(caller.environmentId, input.items) : undefined;
    // Kept lines (items omitted) are written at their codes' current rates, like new ones.
    const taxes = invoice.status === 'draft' && input.items === undefined ? await this.readModel.taxRegister(caller.environmentId, taxCodesOf(invoice)) : undefined;
    const events = decideUpdateInvoice({ ...input, invoiceId, items, taxes }, state, meta);
    const result = await this.store.append([{ stream, expectedVersion: version, events: toNewEvents(events, meta) }], eventMetadataFor(caller));
    return { view: toInvoiceView(existingInvoice(events.reduce(invoiceEvolver.evolve, state), invoiceId)), version: result.nextVersions[0] };
  }
}
