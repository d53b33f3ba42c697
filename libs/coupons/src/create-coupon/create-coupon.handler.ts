import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PRODUCT_STREAM_TYPE, productEvolver } from '@billing/catalog';
import { CommandPath, CommandSession, Written } from '@billing/event-store';
import { FieldError, foldEvents, ValidationError } from '@billing/shared-kernel';
import { codeClaimEvolver, Coupon, couponEvolver, decideClaimCode, decideCreateCoupon } from '../domain';
import { couponCodeStream, couponStream } from '../streams';
import { CreateCouponCommand } from './create-coupon.command';

/**
 * Writes the coupon and claims its code (when it has one) in one transaction.
 * `appliesTo` products are checked against the catalog's product streams
 * (read through the catalog's published events and fold): an unknown one is a 422.
 */
@CommandHandler(CreateCouponCommand)
export class CreateCouponHandler implements ICommandHandler<CreateCouponCommand, Written<Coupon>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context }: CreateCouponCommand): Promise<Written<Coupon>> {
    const couponId = context.meta.newId();
    const events = decideCreateCoupon({ couponId, input }, couponEvolver.initialState(), context.meta);
    // A code claimed by a concurrent request between this one's load and append is a conflict: decided again, it is seen.
    return this.commands.run(context, { retries: 2 }, async (session) => {
      await assertProductsExist(session, environmentId, input.appliesTo?.productIds ?? []);
      if (input.code !== null) {
        const claim = couponCodeStream(environmentId, input.code);
        const { state } = await session.load(claim, codeClaimEvolver);
        session.append(claim, decideClaimCode({ code: input.code, ownerId: couponId, problem: 'coupon-code-taken' }, state));
      }
      const version = session.append(couponStream(environmentId, couponId), events);
      return { id: couponId, version, state: foldEvents(couponEvolver, events) as Coupon };
    });
  }
}

async function assertProductsExist(session: CommandSession, environmentId: string, productIds: readonly string[]): Promise<void> {
  const errors: FieldError[] = [];
  for (const [index, productId] of productIds.entries()) {
    const { state } = await session.load({ environmentId, streamType: PRODUCT_STREAM_TYPE, streamId: productId }, productEvolver);
    if (state.status === 'none') errors.push({ pointer: `/appliesTo/productIds/${index}`, detail: 'names no product of this environment' });
  }
  if (errors.length > 0) throw new ValidationError('The coupon is invalid', errors);
}
