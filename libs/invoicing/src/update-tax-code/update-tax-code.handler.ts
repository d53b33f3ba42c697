import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '@billing/shared-kernel';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { assertIfMatch, eventMetadataFor } from '@billing/platform';
import { decideUpdateTaxCode, taxCodeEvolver } from '../domain';
import { taxCodeStream, TaxCodeView, toTaxCodeView, Versioned } from '../infrastructure/streams';
import { UpdateTaxCodeCommand } from './update-tax-code.command';

@CommandHandler(UpdateTaxCodeCommand)
export class UpdateTaxCodeHandler implements ICommandHandler<UpdateTaxCodeCommand, Versioned<TaxCodeView>> {
  constructor(private readonly store: AggregateStore) {}

  async execute({ caller, input, ifMatch, meta }: UpdateTaxCodeCommand): Promise<Versioned<TaxCodeView>> {
    const stream = taxCodeStream(caller.environmentId, input.code);
    const { state, version } = await this.store.load(stream, taxCodeEvolver);
    if (!state.exists) throw new NotFoundError('Tax code', input.code);
    assertIfMatch(ifMatch, version);
    const events = decideUpdateTaxCode(input, state, meta);
    if (events.length === 0) return { view: toTaxCodeView(state), version };
    const result = await this.store.append([{ stream, expectedVersion: version, events: toNewEvents(events, meta) }], eventMetadataFor(caller));
    const after = events.reduce(taxCodeEvolver.evolve, state);
    if (!after.exists) throw new Error('unreachable: an existing tax code stays');
    return { view: toTaxCodeView(after), version: result.nextVersions[0] };
  }
}
