import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { ExistingPrice } from '../domain';

/** PUT /prices/{priceId}/archive. */
export class ArchivePriceCommand extends Command<Written<ExistingPrice>> {
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
