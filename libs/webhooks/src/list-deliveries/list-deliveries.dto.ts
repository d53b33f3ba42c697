import { ApiProperty } from '@nestjs/swagger';

export class DeliveryAttemptResponse {
  @ApiProperty({ format: 'date-time' }) attemptedAt!: string;
  @ApiProperty({ enum: ['delivered', 'failed'] }) outcome!: string;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true, description: 'HTTP status of the response; null when none arrived.' }) statusCode!:
    number | null;
  @ApiProperty({ type: String, nullable: true, example: 'receiver answered 500' }) error!: string | null;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'Duration of the attempt in milliseconds.' }) durationMs!: number;
}

export class DeliveryResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) webhookId!: string;
  @ApiProperty({ format: 'uuid', description: 'The `id` of the notification body and `webhook-id` header.' }) notificationId!: string;
  @ApiProperty({ example: 'invoice.created' }) type!: string;
  @ApiProperty({ format: 'date-time', description: "When the event happened, in its environment's time (a test clock's, when advanced)." }) occurredAt!: string;
  @ApiProperty({
    enum: ['pending', 'delivered', 'discarded', 'refused', 'disabled', 'cancelled'],
    description:
      '`pending`: waiting for its (next) attempt; `delivered`: a 2xx arrived in time; `discarded`: no success within 72 hours (real time) of the event being recorded; `refused`: the destination is not allowed (e.g. the host resolved only to private or loopback addresses), so it was not sent and is not retried (the subscription stays active; redeliver to try again); `disabled`: the receiver answered 410 Gone; `cancelled`: the subscription was deleted.',
  })
  status!: string;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'Unsuccessful attempts so far.' }) failures!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: "When it is due, in real time whatever the environment's test clock." })
  nextAttemptAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deliveredAt!: string | null;
  @ApiProperty({ type: 'integer', format: 'int32', nullable: true }) lastStatusCode!: number | null;
  @ApiProperty({ type: String, nullable: true }) lastError!: string | null;
  @ApiProperty({ format: 'date-time', description: 'When it was queued: when the event was recorded, in real time.' }) createdAt!: string;
  @ApiProperty({ type: [DeliveryAttemptResponse], description: 'Every attempt, oldest first.' }) attempts!: DeliveryAttemptResponse[];
}

export class DeliveryListResponse {
  @ApiProperty({ type: [DeliveryResponse], description: 'Newest first.' }) items!: DeliveryResponse[];
  @ApiProperty({ type: String, nullable: true }) nextPageToken!: string | null;
}
