import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { PriceView } from '../views';

/** PUT /prices/{priceId}/archive. */
export class ArchivePriceCommand extends Command<Versioned<PriceView>> {
  constructor(
    readonly environmentId: string,
    readonly priceId: string,
    readonly context: CommandContext,
    /** From If-Match: the version the archive is based on; undefined archives the current version. */
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
