import { CommandMetadata, DomainEvent, Evolver, deciderOf } from '@billing/shared-kernel';

/**
 * The outcome of one e-mail delivery: one stream per delivery (its id: uuid v5 of the causing event and the
 * recipient), holding the one event that ends it, which the notifications email.sent and email.failed carry.
 * The outbox row (email_deliveries) holds its progress until then.
 */
export const EMAIL_DELIVERY_STREAM_TYPE = 'email-delivery';

/** What a delivery sends: an invoice or credit note with its PDF, a receipt, or a notice (a failed payment, a trial about to end). */
export const EMAIL_DELIVERY_KINDS = ['invoice', 'credit_note', 'receipt', 'payment_failed', 'trial_will_end'] as const;
export type EmailDeliveryKind = (typeof EMAIL_DELIVERY_KINDS)[number];

export interface EmailOutcomeData {
  readonly deliveryId: string;
  readonly kind: EmailDeliveryKind;
  /** The invoice it is about; null for a trial notice (about a subscription). */
  readonly invoiceId: string | null;
  /** The subscription a trial notice is about; absent for the other kinds. */
  readonly subscriptionId?: string;
  /** Masked (j***@example.com): the event log is public to the environment, a recipient is personal data. */
  readonly recipient: string;
  readonly messageId: string;
  readonly attempts: number;
  /** The SMTP server's last reply (or the connection error). */
  readonly lastReply: string | null;
}
export type EmailSent = DomainEvent<'EmailSent', EmailOutcomeData & { readonly sentAt: string }>;
export type EmailFailed = DomainEvent<'EmailFailed', EmailOutcomeData & { readonly failedAt: string }>;
export type EmailDeliveryEvent = EmailSent | EmailFailed;

/** A delivery as its stream tells it: queued until its one event, then how it ended (the notifications' data). */
export type EmailDeliveryState =
  { readonly status: 'queued' } | (EmailOutcomeData & { readonly status: 'sent' | 'failed'; /** sentAt or failedAt */ readonly at: string });

export const emailDeliveryEvolver: Evolver<EmailDeliveryState, EmailDeliveryEvent> = {
  initialState: () => ({ status: 'queued' }),
  evolve: (state, event) => {
    if (state.status !== 'queued') return state;
    if (event.type === 'EmailSent') {
      const { sentAt, ...data } = event.data;
      return { status: 'sent', ...data, at: sentAt };
    }
    // Any other event type (from a newer release) is no outcome: the delivery stays queued.
    if (event.type !== 'EmailFailed') return state;
    const { failedAt, ...data } = event.data;
    return { status: 'failed', ...data, at: failedAt };
  },
};

/** Records how a delivery ended, once: a second dispatcher recording the same end writes nothing. */
export function decideRecordEmailOutcome(
  outcome: { readonly sent: boolean } & EmailOutcomeData,
  state: EmailDeliveryState,
  meta: CommandMetadata,
): EmailDeliveryEvent[] {
  if (state.status !== 'queued') return [];
  const { sent, ...data } = outcome;
  const at = meta.now.toISOString();
  return sent
    ? [{ type: 'EmailSent', schemaVersion: 1, data: { ...data, sentAt: at } }]
    : [{ type: 'EmailFailed', schemaVersion: 1, data: { ...data, failedAt: at } }];
}

/** An address for logs and the public event log: the first character of the local part, then the domain. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 1) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

/**
 * Retries of a mail the server deferred (4xx) or could not be reached for: 60 s × 2^(n-1), at most 2 h between tries,
 * for 72 hours (real time) from when the delivery was queued; a 5xx reply is permanent and never retried.
 */
export const EMAIL_RETRY = Object.freeze({ baseSeconds: 60, maxSeconds: 2 * 60 * 60, windowSeconds: 72 * 60 * 60 });

/** The SMTP reply class decides: 5xx permanent; 4xx and no reply at all (connection, timeout) transient. */
export function isPermanentSmtpFailure(responseCode: number | undefined): boolean {
  return responseCode !== undefined && responseCode >= 500 && responseCode < 600;
}

/** When to try again after `failures` failed tries (>= 1), or null when that is past the 72-hour window. */
export function nextEmailAttemptAt(queuedAt: Date, failures: number, now: Date): Date | null {
  if (!Number.isSafeInteger(failures) || failures < 1) throw new RangeError('failures must be an integer >= 1');
  const exponent = Math.min(failures - 1, Math.ceil(Math.log2(EMAIL_RETRY.maxSeconds / EMAIL_RETRY.baseSeconds)));
  const delaySeconds = Math.min(EMAIL_RETRY.baseSeconds * 2 ** exponent, EMAIL_RETRY.maxSeconds);
  const due = now.getTime() + delaySeconds * 1000;
  return due > queuedAt.getTime() + EMAIL_RETRY.windowSeconds * 1000 ? null : new Date(due);
}

/** The EmailDelivery aggregate as one value: what it folds (emailDeliveryEvolver) and what each of its commands decides. */
export const emailDeliveryDecider = deciderOf(emailDeliveryEvolver, { RecordEmailOutcome: decideRecordEmailOutcome });
