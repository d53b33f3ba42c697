import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';

export class SubscribeWebhookBody {
  @ApiProperty({
    description:
      'The notification URL. Must be https, without user name, password, fragment or port 0, at most 2048 characters, and must not point to a private, loopback or otherwise internal address.',
    example: 'https://example.com/billing/webhooks',
    maxLength: 2048,
  })
  @IsString()
  url!: string;
}

export class WebhookSubscriptionResponse {
  @ApiProperty({ format: 'uuid', description: 'Stable for a URL within an environment: subscribing the same URL again returns the same id.' })
  id!: string;

  @ApiProperty({ description: 'The normalised notification URL.', example: 'https://example.com/billing/webhooks' })
  url!: string;

  @ApiProperty({
    description: 'The secret that signs every notification (`whsec_` + base64 of 32 random bytes). Returned by subscribe and rotate-key only; store it safely.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6T3J8bqJm3E=',
  })
  signatureKey!: string;
}
