import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { CreatePromotionCodeInput, PromotionCode } from '../domain';

/** POST /promotion-codes, validated (validateCreatePromotionCode). */
export class CreatePromotionCodeCommand extends Command<Written<PromotionCode>> {
  constructor(
    readonly environmentId: string,
    readonly input: CreatePromotionCodeInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
