import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { keysetPage, Page, pageTokenCodec, tokenField } from '@billing/platform';
import { EmailDeliveryKind } from '../domain';

export const EMAIL_STATUSES = ['queued', 'sent', 'failed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

export interface EmailDeliveryView {
  readonly id: string;
  readonly kind: EmailDeliveryKind;
  readonly invoiceId: string | null;
  readonly subscriptionId: string | null;
  readonly paymentId: string | null;
  /** The full address: the caller is the environment's own API client (logs mask it). */
  readonly recipient: string;
  readonly messageId: string;
  readonly status: EmailStatus;
  readonly attempts: number;
  readonly lastReply: string | null;
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
  readonly sentAt: string | null;
}

interface Row {
  seq: string;
  id: string;
  kind: EmailDeliveryKind;
  invoice_id: string | null;
  subscription_id: string | null;
  payment_id: string | null;
  recipient: string;
  message_id: string;
  status: EmailStatus;
  attempts: number;
  last_reply: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  sent_at: Date | null;
}

const pageToken = pageTokenCodec({ seq: tokenField.bigint });

/** GET /emails: the outbox rows of the caller's environment, newest first. */
@Injectable()
export class EmailDeliveriesReadModel {
  constructor(private readonly dataSource: DataSource) {}

  async list(environmentId: string, filter: { invoiceId?: string; status?: EmailStatus }, limit: number, token?: string): Promise<Page<EmailDeliveryView>> {
    const after = token === undefined ? null : pageToken.decode(token);
    const rows = await queryRows<Row>(
      this.dataSource.manager,
      `select seq, id, kind, invoice_id, subscription_id, payment_id, recipient, message_id, status, attempts, last_reply, next_attempt_at, created_at, sent_at
         from email_deliveries
        where environment_id = $1 and ($2::uuid is null or invoice_id = $2) and ($3::text is null or status = $3)
          and ($4::bigint is null or seq < $4)
        order by seq desc
        limit $5`,
      [environmentId, filter.invoiceId ?? null, filter.status ?? null, after?.seq ?? null, limit + 1],
    );
    return keysetPage(rows, { limit, codec: pageToken, key: (row) => ({ seq: row.seq }), item: toView });
  }
}

function toView(row: Row): EmailDeliveryView {
  return {
    id: row.id,
    kind: row.kind,
    invoiceId: row.invoice_id,
    subscriptionId: row.subscription_id,
    paymentId: row.payment_id,
    recipient: row.recipient,
    messageId: row.message_id,
    status: row.status,
    attempts: row.attempts,
    lastReply: row.last_reply,
    nextAttemptAt: row.status === 'queued' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    createdAt: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
  };
}
