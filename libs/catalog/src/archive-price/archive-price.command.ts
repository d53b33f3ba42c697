import { Command } from '@nestjs/cqrs';
import { CallerContext } from '@billing/platform';
import { CommandMetadata } from '@billing/shared-kernel';
import { PriceWriteResult } from '../catalog-streams';

/** PUT /prices/{priceId}/archive. */
export class ArchivePriceCommand extends Command<PriceWriteResult> {
  constructor(
    readonly caller: CallerContext,
    readonly priceId: string,
    readonly ifMatch: string | undefined,
    readonly meta: CommandMetadata,
  ) {
    super();
  }
}
