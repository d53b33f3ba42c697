import { Command } from '@nestjs/cqrs';
import { CallerContext } from '@billing/platform';
import { CommandMetadata } from '@billing/shared-kernel';
import { PriceWriteResult } from '../catalog-streams';

/** POST /prices: `body` is the untrusted request body, validated by the domain. */
export class CreatePriceCommand extends Command<PriceWriteResult> {
  constructor(
    readonly caller: CallerContext,
    readonly body: unknown,
    readonly meta: CommandMetadata,
  ) {
    super();
  }
}
