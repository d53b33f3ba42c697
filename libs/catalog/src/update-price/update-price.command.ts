import { Command } from '@nestjs/cqrs';
import { CallerContext } from '@billing/platform';
import { CommandMetadata } from '@billing/shared-kernel';
import { PriceWriteResult } from '../catalog-streams';

/** PUT /prices/{priceId}: partial update of name, termCount, description and pricing. */
export class UpdatePriceCommand extends Command<PriceWriteResult> {
  constructor(
    readonly caller: CallerContext,
    readonly priceId: string,
    readonly body: unknown,
    readonly ifMatch: string | undefined,
    readonly meta: CommandMetadata,
  ) {
    super();
  }
}
