import { Command } from '@nestjs/cqrs';
import { CallerContext } from '@billing/platform';
import { CommandMetadata } from '@billing/shared-kernel';
import { ProductWriteResult } from '../catalog-streams';

/** POST /products: `body` is the untrusted request body, validated by the domain. */
export class CreateProductCommand extends Command<ProductWriteResult> {
  constructor(
    readonly caller: CallerContext,
    readonly body: unknown,
    readonly meta: CommandMetadata,
  ) {
    super();
  }
}
