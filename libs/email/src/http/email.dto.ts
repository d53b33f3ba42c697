import { ApiProperty } from '@nestjs/swagger';
import { EMAIL_DELIVERY_KINDS } from '../domain';

const ADDRESS = { type: String, nullable: true, format: 'email', example: 'billing@example.com' } as const;

export class EmailSettingsDto {
  @ApiProperty({ description: 'The master switch: false, no mail is queued for events (POST /invoices/{id}/send still sends).' }) enabled!: boolean;
  @ApiProperty({ description: "A booked invoice, with its recorded PDF, to the customer record's e-mail." }) invoiceBooked!: boolean;
  @ApiProperty({ description: 'A receipt when a payment of an invoice succeeds.' }) paymentSucceeded!: boolean;
  @ApiProperty({ description: 'A failed payment of an invoice: a notice with the reason and the link to pay.' }) paymentFailed!: boolean;
  @ApiProperty({ description: 'A booked credit note, with its recorded PDF.' }) creditNoteBooked!: boolean;
  @ApiProperty({ description: "A subscription's trial ends in 3 days (subscription.trial_will_end): a notice with the day it ends." }) trialWillEnd!: boolean;
  @ApiProperty({ ...ADDRESS, required: false, description: 'Reply-To of every mail; absent or null: none.' }) replyTo!: string | null;
  @ApiProperty({ ...ADDRESS, required: false, description: 'A blind copy of every mail; absent or null: none.' }) bcc!: string | null;
}

export class SendInvoiceBody {
  @ApiProperty({ ...ADDRESS, required: false, description: "Where to send it; absent or null: the customer record's e-mail." }) to?: string | null;
}

export class SendInvoiceResponse {
  @ApiProperty({ format: 'uuid' }) invoiceId!: string;
  @ApiProperty({ ...ADDRESS, description: "The request's address; null: the customer record's." }) to!: string | null;
}

export class EmailDeliveryResponse {
  @ApiProperty({ format: 'uuid', description: 'uuid v5 of the causing event and the recipient: one delivery per (event, recipient).' }) id!: string;
  @ApiProperty({ enum: EMAIL_DELIVERY_KINDS }) kind!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The invoice it is about; null for a trial notice.' }) invoiceId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The subscription a trial notice is about; null for the other kinds.' })
  subscriptionId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The payment a receipt is for.' }) paymentId!: string | null;
  @ApiProperty({ format: 'email' }) recipient!: string;
  @ApiProperty({ example: '<0d8e2f4c-5b1a-5c3e-9f7d-2a6b8c4e1d30@example.com>', description: 'The same on every try.' }) messageId!: string;
  @ApiProperty({
    enum: ['queued', 'sent', 'failed'],
    description:
      '`queued`: waiting for its (next) try or its invoice document; `sent`: the SMTP server accepted it (250); `failed`: a 5xx reply, or no acceptance within 72 hours.',
  })
  status!: string;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'SMTP tries so far.' }) attempts!: number;
  @ApiProperty({ type: String, nullable: true, example: '250 OK: message queued', description: "The server's last reply, or the connection error." })
  lastReply!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a queued delivery is next tried (real time).' })
  nextAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sentAt!: string | null;
}

export class EmailDeliveryListResponse {
  @ApiProperty({ type: [EmailDeliveryResponse], description: 'Newest first.' }) items!: EmailDeliveryResponse[];
  @ApiProperty({ type: String, nullable: true }) nextPageToken!: string | null;
}
