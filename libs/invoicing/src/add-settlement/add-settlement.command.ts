import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';

export interface AddSettlementInput {
  readonly date: string;
  readonly amount: number;
  readonly reference?: string | null;
  readonly note?: string | null;
}

export class AddSettlementCommand {
  constructor(
    readonly caller: CallerContext,
    readonly invoiceId: string,
    readonly input: AddSettlementInput,
    readonly ifMatch: string | undefined,
    readonly meta: CommandMetadata,
  ) {}
}
