import { Inject, Injectable, Logger } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import { EventStore, foldStream, queryRows, Reactor, RecordedEvent } from '@billing/event-store';
import { CustomerRecordQuery, invoiceEvolver, invoiceStream } from '@billing/invoicing';
import { PAYMENT_STREAM_TYPE, PaymentFailedData, paymentEvolver, paymentStream, PaymentSucceededData } from '@billing/payments';
import { APP_CONFIG, AppConfig } from '@billing/platform';
import { isEmailAddress } from '@billing/shared-kernel';
import { SUBSCRIPTION_STREAM, subscriptionEvolver, subscriptionStream, SubscriptionTrialEndAnnouncedData } from '@billing/subscriptions';
import { INVOICE_DOCUMENT_STREAM_TYPE, InvoiceDocumentRenderedData } from '@billing/templates';
import {
  EMAIL_RETRY,
  EmailDeliveryKind,
  EmailKind,
  EmailSettings,
  emailSettingsEvolver,
  INVOICE_EMAIL_REQUEST_STREAM_TYPE,
  InvoiceEmailRequested,
  maskAddress,
} from '../domain';
import { emailDeliveryIdFor, emailSettingsStream } from '../streams';

export const EMAIL_OUTBOX_REACTOR = 'email.outbox';
export const EMAIL_DELIVERIES_CHANNEL = 'email_deliveries';
/** Set on the transaction's QueryRunner.data when deliveries were queued: this process's dispatcher is woken after commit. */
export const EMAIL_DELIVERIES_QUEUED = 'email.deliveriesQueued';

/** A mail an event asks for, before its recipient is known: about an invoice, or (a trial notice) a subscription. */
interface Wanted {
  readonly event: RecordedEvent;
  readonly kind: EmailDeliveryKind;
  readonly setting: EmailKind | null;
  readonly invoiceId: string | null;
  readonly subscriptionId: string | null;
  readonly paymentId: string | null;
  readonly to: string | null;
}

/** Who a wanted mail goes to, and what it is about; null: nobody (logged), or nothing left to say. */
type Addressed = Pick<DeliveryRow, 'kind' | 'invoiceId' | 'subscriptionId' | 'recipient'>;

/**
 * Queues e-mail deliveries from events, in log order, exactly once per (event, recipient): the delivery's id is
 * derived from both and rows are inserted with this reactor's checkpoint, in its transaction. A reactor, not a
 * projection: never reset or replayed (a rebuild would otherwise mail every invoice again).
 * - an invoice's (or credit note's) document recorded (InvoiceDocumentRendered): the booked invoice's mail, so it
 *   never leaves without its PDF;
 * - POST /invoices/{id}/send (InvoiceEmailRequested): that invoice's mail again, whatever the settings;
 * - a payment succeeded: its receipt; a payment failed: a notice with the link to pay, unless the invoice has nothing
 *   left to pay when the failure is read (settled meanwhile, or void);
 * - subscription.trial_will_end: a notice to the subscription's customer.
 * The recipient is the request's `to`, else the e-mail of the customer record the invoice (or subscription) names,
 * else the invoice's (or subscription's) inline customer's `email`; without one no mail is queued (logged).
 */
@Injectable()
export class EmailOutboxReactor implements Reactor {
  readonly name = EMAIL_OUTBOX_REACTOR;
  readonly streamTypes = [INVOICE_DOCUMENT_STREAM_TYPE, INVOICE_EMAIL_REQUEST_STREAM_TYPE, PAYMENT_STREAM_TYPE, SUBSCRIPTION_STREAM];
  readonly eventTypes = ['InvoiceDocumentRendered', 'InvoiceEmailRequested', 'PaymentSucceeded', 'PaymentFailed', 'SubscriptionTrialEndAnnounced'];
  private readonly logger = new Logger('EmailOutbox');

  constructor(
    private readonly eventStore: EventStore,
    private readonly queries: QueryBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const wanted = events.map(wantedBy).filter((want): want is Wanted => want !== null);
    if (wanted.length === 0) return;
    // Everything is read before anything is written (a transaction without an id holds back no projection).
    const settings = new Map<string, EmailSettings>();
    const rows: DeliveryRow[] = [];
    for (const want of wanted) {
      const { environmentId } = want.event;
      if (!settings.has(environmentId)) {
        settings.set(environmentId, foldStream(await this.eventStore.readStream(emailSettingsStream(environmentId), tx), emailSettingsEvolver).state);
      }
      const current = settings.get(environmentId)!;
      if (want.setting !== null && !(current.enabled && current[want.setting])) continue;
      const addressed = want.subscriptionId !== null ? await this.aboutSubscription(want, want.subscriptionId, tx) : await this.aboutInvoice(want, tx);
      if (addressed === null) continue;
      const id = emailDeliveryIdFor(want.event.eventId, addressed.recipient);
      rows.push({
        ...addressed,
        environmentId,
        id,
        eventId: want.event.eventId,
        paymentId: want.paymentId,
        bcc: current.bcc,
        replyTo: current.replyTo,
        messageId: `<${id}@${domainOf(this.config.email.mailFrom)}>`,
        queuedAt: want.event.recordedAt,
      });
      this.logger.log({ msg: 'e-mail queued', environmentId, deliveryId: id, kind: addressed.kind, recipient: maskAddress(addressed.recipient) });
    }
    if (rows.length === 0) return;
    await insertDeliveries(tx, rows);
    if (tx.queryRunner) tx.queryRunner.data[EMAIL_DELIVERIES_QUEUED] = true;
  }

  private async aboutInvoice(want: Wanted, tx: EntityManager): Promise<Addressed | null> {
    const { environmentId } = want.event;
    // A payment's failure names its payment only: the invoice comes from the payment's creation.
    const invoiceId = want.invoiceId ?? (await this.invoiceOfPayment(environmentId, want.paymentId!, tx));
    if (invoiceId === null) return null;
    const invoice = foldStream(await this.eventStore.readStream(invoiceStream(environmentId, invoiceId), tx), invoiceEvolver).state;
    if (invoice.status === 'none') return null;
    if (want.kind === 'payment_failed' && (invoice.status !== 'booked' || invoice.settledAmount >= invoice.totalInclVat)) return null;
    const kind: EmailDeliveryKind = want.kind !== 'invoice' ? want.kind : invoice.type === 'credit_note' ? 'credit_note' : 'invoice';
    // The record's e-mail as it is now (it may have changed since booking), else the one the invoice's customer carries (an inline customer's).
    const record = want.to === null ? await this.queries.execute(new CustomerRecordQuery(environmentId, invoice.customer.id)) : null;
    const recipient = want.to ?? record?.email ?? invoice.customer.email ?? null;
    if (recipient === null) {
      this.logger.log({ msg: 'no e-mail sent: the invoice names no customer with an e-mail', environmentId, invoiceId, kind });
      return null;
    }
    return { kind, invoiceId, subscriptionId: null, recipient };
  }

  private async aboutSubscription(want: Wanted, subscriptionId: string, tx: EntityManager): Promise<Addressed | null> {
    const { environmentId } = want.event;
    const subscription = foldStream(await this.eventStore.readStream(subscriptionStream(environmentId, subscriptionId), tx), subscriptionEvolver).state;
    if (subscription.status === 'none') return null;
    const record = subscription.customerId ? await this.queries.execute(new CustomerRecordQuery(environmentId, subscription.customerId)) : null;
    const inline = subscription.customer.email;
    const recipient = record?.email ?? (typeof inline === 'string' && isEmailAddress(inline) ? inline : null);
    if (recipient === null) {
      this.logger.log({ msg: 'no e-mail sent: the subscription names no customer with an e-mail', environmentId, subscriptionId, kind: want.kind });
      return null;
    }
    return { kind: want.kind, invoiceId: null, subscriptionId, recipient };
  }

  private async invoiceOfPayment(environmentId: string, paymentId: string, tx: EntityManager): Promise<string | null> {
    const payment = foldStream(await this.eventStore.readStream(paymentStream(environmentId, paymentId), tx), paymentEvolver).state;
    return payment.status === 'none' ? null : payment.invoiceId;
  }
}

function wantedBy(event: RecordedEvent): Wanted | null {
  const none = { invoiceId: null, subscriptionId: null, paymentId: null, to: null };
  switch (event.type) {
    case 'InvoiceDocumentRendered': {
      const data = event.data as InvoiceDocumentRenderedData;
      const setting = data.invoiceType === 'credit_note' ? 'creditNoteBooked' : 'invoiceBooked';
      return { ...none, event, kind: 'invoice', setting, invoiceId: data.invoiceId };
    }
    case 'InvoiceEmailRequested': {
      const data = event.data as InvoiceEmailRequested['data'];
      return { ...none, event, kind: 'invoice', setting: null, invoiceId: data.invoiceId, to: data.to };
    }
    case 'PaymentSucceeded': {
      const data = event.data as PaymentSucceededData;
      return { ...none, event, kind: 'receipt', setting: 'paymentSucceeded', invoiceId: data.invoiceId, paymentId: data.paymentId };
    }
    case 'PaymentFailed': {
      const data = event.data as PaymentFailedData;
      return { ...none, event, kind: 'payment_failed', setting: 'paymentFailed', paymentId: data.paymentId };
    }
    case 'SubscriptionTrialEndAnnounced': {
      const data = event.data as SubscriptionTrialEndAnnouncedData;
      return { ...none, event, kind: 'trial_will_end', setting: 'trialWillEnd', subscriptionId: data.subscriptionId };
    }
    default:
      return null;
  }
}

/** The host part of MAIL_FROM (`Billing <billing@example.com>` → example.com), the right-hand side of every Message-ID. */
export function domainOf(mailFrom: string): string {
  const match = /@([^\s>]+)/.exec(mailFrom);
  return match ? match[1] : 'localhost';
}

/** A delivery as the reactor queues it (the dispatcher claims the same members, less the event). */
export interface DeliveryRow {
  readonly environmentId: string;
  readonly id: string;
  readonly kind: EmailDeliveryKind;
  readonly eventId: string;
  readonly invoiceId: string | null;
  readonly subscriptionId: string | null;
  readonly paymentId: string | null;
  readonly recipient: string;
  readonly bcc: string | null;
  readonly replyTo: string | null;
  readonly messageId: string;
  readonly queuedAt: Date;
}

/** One statement for the batch, with the NOTIFY other processes' dispatchers hear at commit. */
async function insertDeliveries(tx: EntityManager, rows: readonly DeliveryRow[]): Promise<void> {
  const column = <K extends keyof DeliveryRow>(key: K) => rows.map((row) => row[key]);
  await queryRows(
    tx,
    `with queued as (
       insert into email_deliveries (environment_id, id, kind, event_id, invoice_id, subscription_id, payment_id, recipient, bcc, reply_to,
                                     message_id, status, next_attempt_at, deadline_at, created_at)
       select d.environment_id, d.id, d.kind, d.event_id, d.invoice_id, d.subscription_id, d.payment_id, d.recipient, d.bcc, d.reply_to,
              d.message_id, 'queued', d.queued_at, d.queued_at + make_interval(secs => $13), d.queued_at
         from unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::uuid[], $8::text[], $9::text[], $10::text[],
                     $11::text[], $12::timestamptz[])
              as d(environment_id, id, kind, event_id, invoice_id, subscription_id, payment_id, recipient, bcc, reply_to, message_id, queued_at)
       on conflict do nothing)
     select pg_notify($14, '')`,
    [
      column('environmentId'),
      column('id'),
      column('kind'),
      column('eventId'),
      column('invoiceId'),
      column('subscriptionId'),
      column('paymentId'),
      column('recipient'),
      column('bcc'),
      column('replyTo'),
      column('messageId'),
      column('queuedAt'),
      EMAIL_RETRY.windowSeconds,
      EMAIL_DELIVERIES_CHANNEL,
    ],
  );
}
