import { CommandContext } from '@billing/event-store';
import { UpdateTaxCode } from '../domain';

export class UpdateTaxCodeCommand {
  constructor(
    readonly environmentId: string,
    readonly input: UpdateTaxCode,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {}
}
