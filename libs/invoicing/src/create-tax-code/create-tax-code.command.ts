import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';
import { CreateTaxCode } from '../domain';

export class CreateTaxCodeCommand {
  constructor(
    readonly caller: CallerContext,
    readonly input: CreateTaxCode,
    readonly meta: CommandMetadata,
  ) {}
}
