import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideArchivePromotionCode, existingPromotionCode, PromotionCode, promotionCodeEvolver } from '../domain';
import { promotionCodeStream } from '../streams';
import { ArchivePromotionCodeCommand } from './archive-promotion-code.command';

@CommandHandler(ArchivePromotionCodeCommand)
export class ArchivePromotionCodeHandler implements ICommandHandler<ArchivePromotionCodeCommand, Written<PromotionCode>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, promotionCodeId, context, expectedVersion }: ArchivePromotionCodeCommand): Promise<Written<PromotionCode>> {
    const { state, version } = await this.commands.handle(
      promotionCodeStream(environmentId, promotionCodeId),
      promotionCodeEvolver,
      (current) => decideArchivePromotionCode({ promotionCodeId }, current, context.meta),
      context,
      { expectedVersion },
    );
    return { id: promotionCodeId, version, state: existingPromotionCode(state, promotionCodeId) };
  }
}
