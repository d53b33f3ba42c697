import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';
import { UpdateTaxCode } from '../domain';

export class UpdateTaxCodeCommand {
  constructor(
    readonly caller: CallerContext,
    readonly input: UpdateTaxCode,
    readonly ifMatch: string | undefined,
    readonly meta: CommandMetadata,
  ) {}
}
