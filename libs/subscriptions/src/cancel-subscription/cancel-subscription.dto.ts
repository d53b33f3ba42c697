import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { ValidationError } from '@billing/shared-kernel';
import { CancelOptions } from './cancel-subscription.command';

export const CANCEL_AT = ['period_end', 'now'] as const;

/** PUT /subscriptions/{id}/cancel: an empty body (or none) cancels at the end of the period. */
export class CancelSubscriptionDto {
  @ApiProperty({
    enum: CANCEL_AT,
    required: false,
    default: 'period_end',
    description:
      'period_end: service continues to the end of the current billing period; now: service ends today, with a final invoice booked at once (README: Cancel now)',
  })
  @IsOptional()
  @IsIn(CANCEL_AT)
  at?: (typeof CANCEL_AT)[number];

  @ApiProperty({
    required: false,
    default: false,
    description: 'only with at: now — credit the unused advance-billed days pro rata on the final invoice',
  })
  @IsOptional()
  @IsBoolean()
  prorate?: boolean;
}

/** The body as command options; prorate means nothing at the period's end, so it is refused there. */
export function cancelOptions(body: CancelSubscriptionDto | undefined): CancelOptions {
  const at = body?.at ?? 'period_end';
  if (at === 'period_end' && body?.prorate !== undefined) throw ValidationError.at('/prorate', 'is only given with at: now');
  return { at, prorate: body?.prorate ?? false };
}
