import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** PUT /subscriptions/{id}/pause: an empty body (or none) pauses until resumed by hand. */
export class PauseSubscriptionDto {
  @ApiProperty({
    type: String,
    format: 'date',
    required: false,
    nullable: true,
    description:
      'the day the subscription resumes by itself (the first day served again; the billing engine resumes it at its local midnight): after today, ' +
      'on or before the last day of service; absent or null: only PUT /subscriptions/{id}/resume ends the pause',
  })
  @IsOptional()
  @IsString()
  resumeAt?: string | null;
}
