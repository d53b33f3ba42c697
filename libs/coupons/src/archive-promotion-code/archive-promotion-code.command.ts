import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { PromotionCode } from '../domain';

/** PUT /promotion-codes/{promotionCodeId}/archive: the code takes no new redemptions (its code stays claimed). */
export class ArchivePromotionCodeCommand extends Command<Written<PromotionCode>> {
  constructor(
    readonly environmentId: string,
    readonly promotionCodeId: string,
    readonly context: CommandContext,
    readonly expectedVersion?: number,
  ) {
    super();
  }
}
