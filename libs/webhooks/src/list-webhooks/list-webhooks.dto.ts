import { ApiProperty } from '@nestjs/swagger';

export class WebhookSummaryResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'https://example.com/billing/webhooks' }) url!: string;
  @ApiProperty({ description: 'Payload version chosen with X-version at subscribe time.', example: '2022-03' }) version!: string;
  @ApiProperty({ enum: ['active', 'disabled'], description: '`disabled`: the receiver answered 410 Gone; subscribe again to resume.' })
  status!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) disabledReason!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookSummaryResponse], description: 'Subscriptions of the environment, oldest first. Signature keys are never listed.' })
  items!: WebhookSummaryResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `pageToken` for the next page; null on the last page.' })
  nextPageToken!: string | null;
}
