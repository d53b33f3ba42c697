import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { assertIfMatch, eventMetadataFor } from '@billing/platform';
import { decideAddSettlement, invoiceEvolver, InvoiceView, toInvoiceView } from '../domain';
import { existingInvoice, invoiceStream, Versioned } from '../infrastructure/streams';
import { AddSettlementCommand } from './add-settlement.command';

@CommandHandler(AddSettlementCommand)
export class AddSettlementHandler implements ICommandHandler<AddSettlementCommand, Versioned<InvoiceView>> {
  constructor(private readonly store: AggregateStore) {}

  async execute({ caller, invoiceId, input, ifMatch, meta }: AddSettlementCommand): Promise<Versioned<InvoiceView>> {
    const stream = invoiceStream(caller.environmentId, invoiceId);
    const { state, version } = await this.store.load(stream, invoiceEvolver);
    existingInvoice(state, invoiceId);
    assertIfMatch(ifMatch, version);
    const events = decideAddSettlement({ ...input, invoiceId }, state, meta);
    const result = await this.store.append([{ stream, expectedVersion: version, events: toNewEvents(events, meta) }], eventMetadataFor(caller));
    return { view: toInvoiceView(existingInvoice(events.reduce(invoiceEvolver.evolve, state), invoiceId)), version: result.nextVersions[0] };
  }
}
