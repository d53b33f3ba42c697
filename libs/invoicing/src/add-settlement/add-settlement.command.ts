import { CommandContext } from '@billing/event-store';
import { AddSettlement } from '../domain';

export class AddSettlementCommand {
  constructor(
    readonly environmentId: string,
    readonly input: AddSettlement,
    readonly context: CommandContext,
    /** The version the client's change is based on (If-Match); absent: whatever is current. */
    readonly expectedVersion?: number,
  ) {}
}
