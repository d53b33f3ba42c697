import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '@billing/shared-kernel';
import { AggregateStore, StreamVersionConflictError, toNewEvents } from '@billing/event-store';
import { eventMetadataFor } from '@billing/platform';
import { decideCreateTaxCode, taxCodeEvolver } from '../domain';
import { taxCodeStream, TaxCodeView, toTaxCodeView, Versioned } from '../infrastructure/streams';
import { CreateTaxCodeCommand } from './create-tax-code.command';

@CommandHandler(CreateTaxCodeCommand)
export class CreateTaxCodeHandler implements ICommandHandler<CreateTaxCodeCommand, Versioned<TaxCodeView>> {
  constructor(private readonly store: AggregateStore) {}

  async execute({ caller, input, meta }: CreateTaxCodeCommand): Promise<Versioned<TaxCodeView>> {
    const stream = taxCodeStream(caller.environmentId, input.code);
    const { state } = await this.store.load(stream, taxCodeEvolver);
    const events = decideCreateTaxCode(input, state, meta);
    try {
      const result = await this.store.append([{ stream, expectedVersion: 'no_stream', events: toNewEvents(events, meta) }], eventMetadataFor(caller));
      const after = events.reduce(taxCodeEvolver.evolve, state);
      if (!after.exists) throw new Error('TaxCodeCreated did not create the tax code');
      return { view: toTaxCodeView(after), version: result.nextVersions[0] };
    } catch (error) {
      // A concurrent create of the same code won the race for the stream.
      if (error instanceof StreamVersionConflictError) throw new ConflictError('tax-code-exists', `tax code ${input.code} already exists`);
      throw error;
    }
  }
}
