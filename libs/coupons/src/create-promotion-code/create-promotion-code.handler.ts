import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { foldEvents } from '@billing/shared-kernel';
import { codeClaimEvolver, couponEvolver, decideClaimCode, decideCreatePromotionCode, PromotionCode, promotionCodeEvolver } from '../domain';
import { couponStream, promotionCodeClaimStream, promotionCodeStream } from '../streams';
import { CreatePromotionCodeCommand } from './create-promotion-code.command';

/** Reads its coupon, claims the code (case-insensitively) and writes the promotion code, in one transaction. */
@CommandHandler(CreatePromotionCodeCommand)
export class CreatePromotionCodeHandler implements ICommandHandler<CreatePromotionCodeCommand, Written<PromotionCode>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context }: CreatePromotionCodeCommand): Promise<Written<PromotionCode>> {
    const promotionCodeId = context.meta.newId();
    // A code claimed by a concurrent request between this one's load and append is a conflict: decided again, it is seen.
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const { state: coupon } = await session.load(couponStream(environmentId, input.couponId), couponEvolver);
      const events = decideCreatePromotionCode(
        { promotionCodeId, input, coupon: coupon.status === 'none' ? null : coupon },
        promotionCodeEvolver.initialState(),
        context.meta,
      );
      const claim = promotionCodeClaimStream(environmentId, input.code);
      const { state } = await session.load(claim, codeClaimEvolver);
      session.append(claim, decideClaimCode({ code: input.code, ownerId: promotionCodeId, problem: 'promotion-code-taken' }, state));
      const version = session.append(promotionCodeStream(environmentId, promotionCodeId), events);
      return { id: promotionCodeId, version, state: foldEvents(promotionCodeEvolver, events) as PromotionCode };
    });
  }
}
