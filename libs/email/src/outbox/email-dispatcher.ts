import { Logger } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import type Mail from 'nodemailer/lib/mailer';
import { DataSource } from 'typeorm';
import { CommandPath, EventStore, foldStream, queryRows } from '@billing/event-store';
import { HostedLinks, invoiceEvolver, invoiceStream } from '@billing/invoicing';
import { paymentEvolver, paymentStream } from '@billing/payments';
import { Clock, EmailSettings as EmailConfig, FaultPoint, killIfArmed, NotifiedRounds } from '@billing/platform';
import { minorUnits } from '@billing/shared-kernel';
import { subscriptionEvolver, subscriptionStream } from '@billing/subscriptions';
import { InvoiceEmailQuery } from '@billing/templates';
import { decideRecordEmailOutcome, EmailDeliveryKind, emailDeliveryEvolver, maskAddress, nextEmailAttemptAt } from '../domain';
import { emailDeliveryStream } from '../streams';
import { DeliveryRow, EMAIL_DELIVERIES_CHANNEL } from './email-outbox.reactor';
import { MailTransport, SendResult } from './mail-transport';

/** A delivery this dispatcher holds the lease of. */
interface ClaimedEmail extends Omit<DeliveryRow, 'eventId'> {
  readonly attempts: number;
  readonly deadlineAt: Date;
  readonly leaseToken: string;
}

interface ClaimRow {
  environment_id: string;
  id: string;
  kind: EmailDeliveryKind;
  invoice_id: string | null;
  subscription_id: string | null;
  payment_id: string | null;
  recipient: string;
  bcc: string | null;
  reply_to: string | null;
  message_id: string;
  attempts: number;
  created_at: Date;
  deadline_at: Date;
}

export type EmailOutcome = 'sent' | 'queued' | 'failed' | 'waiting' | 'lease-lost';

/** How long a claimed delivery is ours (an SMTP exchange takes seconds); a dispatcher that died frees it after this. */
const LEASE_MS = 60_000;
/** A mail whose document is not recorded yet looks again after this (no attempt counted). */
const DOCUMENT_WAIT_MS = 2_000;
const BATCH = 10;

/**
 * Sends queued e-mail deliveries, at least once, like the webhook dispatcher: a claim leases due rows
 * (`FOR UPDATE SKIP LOCKED`: any number of worker processes share the queue) and commits; the SMTP exchange runs
 * with no transaction open; the result is recorded only while the lease is still ours. A dispatcher that dies
 * between claim and send loses nothing: the lease expires and the row is due again. One that dies between the
 * server's 250 and the record sends the mail a second time when the lease expires, with the same Message-ID (the
 * delivery's id), so a receiving system can recognise it. The 4xx and connection-error retries, the 72-hour window
 * and the lease are real time (the injected base clock), never an environment's test clock.
 */
export class EmailDispatcher {
  private readonly logger = new Logger('EmailDispatcher');
  private readonly rounds: NotifiedRounds;

  constructor(
    private readonly deps: {
      readonly dataSource: DataSource;
      readonly clock: Clock;
      readonly commands: CommandPath;
      readonly eventStore: EventStore;
      readonly queries: QueryBus;
      /** The invoice's hosted page, linked from every mail about it. */
      readonly hostedLinks: HostedLinks;
      readonly config: EmailConfig;
      /** For LISTEN; null: poll only. */
      readonly databaseUrl: string | null;
      /** A crash test's kill point (FAULT_KILL_AT); null in service. */
      readonly faultKillAt: FaultPoint | null;
    },
    private readonly transport: MailTransport,
  ) {
    this.rounds = new NotifiedRounds({
      name: 'e-mail',
      channel: EMAIL_DELIVERIES_CHANNEL,
      databaseUrl: deps.databaseUrl,
      pollIntervalMs: deps.config.pollIntervalMs,
      round: () => this.drain(),
    });
  }

  start(): Promise<void> {
    return this.rounds.start();
  }

  async stop(): Promise<void> {
    if (await this.rounds.stop()) this.transport.close();
  }

  /** Looks for due deliveries now (coalesced while a round runs). */
  wake(): void {
    this.rounds.wake();
  }

  private async drain(): Promise<void> {
    while (this.rounds.isRunning) {
      const claimed = await this.claim(BATCH);
      await Promise.all(
        claimed.map((email) =>
          this.deliver(email).catch((error: unknown) =>
            this.logger.error({ msg: 'e-mail delivery failed unexpectedly; retried when its lease expires', deliveryId: email.id, error: String(error) }),
          ),
        ),
      );
      if (claimed.length < BATCH) return;
    }
  }

  /** Leases up to `limit` due deliveries (committed before returning). */
  async claim(limit: number): Promise<ClaimedEmail[]> {
    const now = this.deps.clock.now();
    const leaseToken = randomUUID();
    const rows = await queryRows<ClaimRow>(
      this.deps.dataSource.manager,
      `update email_deliveries d set lease_expires_at = $2, lease_token = $3
        where (d.environment_id, d.id) in (
          select environment_id, id from email_deliveries
           where status = 'queued' and next_attempt_at <= $1 and (lease_expires_at is null or lease_expires_at <= $1)
           order by next_attempt_at
           limit $4
           for update skip locked)
        returning d.environment_id, d.id, d.kind, d.invoice_id, d.subscription_id, d.payment_id, d.recipient, d.bcc, d.reply_to, d.message_id,
                  d.attempts, d.created_at, d.deadline_at`,
      [now, new Date(now.getTime() + LEASE_MS), leaseToken, limit],
    );
    return rows.map((row) => ({
      environmentId: row.environment_id,
      id: row.id,
      kind: row.kind,
      invoiceId: row.invoice_id,
      subscriptionId: row.subscription_id,
      paymentId: row.payment_id,
      recipient: row.recipient,
      bcc: row.bcc,
      replyTo: row.reply_to,
      messageId: row.message_id,
      attempts: row.attempts,
      queuedAt: row.created_at,
      deadlineAt: row.deadline_at,
      leaseToken,
    }));
  }

  /** Builds, sends and records one claimed delivery. */
  async deliver(email: ClaimedEmail): Promise<EmailOutcome> {
    const content = await this.contentOf(email);
    if (content === null) {
      if (this.deps.clock.now() > email.deadlineAt)
        return this.finish(email, email.attempts, { ok: false, permanent: true, reply: 'the invoice document was never recorded' });
      // The invoice's PDF is not recorded yet: the mail waits for it rather than leaving without it.
      return (await this.release(email, new Date(this.deps.clock.now().getTime() + DOCUMENT_WAIT_MS))) ? 'waiting' : 'lease-lost';
    }
    const message: Mail.Options & { deliveryId: string } = {
      deliveryId: email.id,
      from: this.deps.config.mailFrom,
      to: email.recipient,
      bcc: email.bcc ?? undefined,
      replyTo: email.replyTo ?? undefined,
      messageId: email.messageId,
      subject: content.subject,
      html: content.html,
      text: content.text,
      attachments: content.attachments,
    };
    const result = await this.transport.send(message);
    const attempts = email.attempts + 1;
    if (result.ok || result.permanent) return this.finish(email, attempts, result);
    const next = nextEmailAttemptAt(email.queuedAt, attempts, this.deps.clock.now());
    if (next === null) return this.finish(email, attempts, { ...result, reply: `${result.reply} (given up: 72 hours after it was queued)` });
    this.logger.warn({ msg: 'e-mail deferred; will retry', deliveryId: email.id, recipient: maskAddress(email.recipient), reply: result.reply, next });
    const kept = await queryRows(
      this.deps.dataSource.manager,
      `update email_deliveries set attempts = $4, last_reply = $5, next_attempt_at = $6, lease_expires_at = null, lease_token = null
        where environment_id = $1 and id = $2 and lease_token = $3 returning 1`,
      [email.environmentId, email.id, email.leaseToken, attempts, result.reply, next],
    );
    return kept.length > 0 ? 'queued' : 'lease-lost';
  }

  /**
   * Sent or failed for good: the row and its outcome event (the notification email.sent or email.failed) in one
   * transaction. Recorded one after the other, a crash between them left a row `sent` whose event never came: no
   * webhook, no outcome in the log, and nothing to retry it (issue 41 #10). Now a crash leaves the row leased, due
   * again when the lease expires (the mail goes again with its Message-ID, as after any crash past the send).
   */
  private async finish(email: ClaimedEmail, attempts: number, result: SendResult): Promise<EmailOutcome> {
    const now = this.deps.clock.now();
    const kept = await this.deps.commands.atomically(async () => {
      const rows = await queryRows(
        this.deps.dataSource.manager,
        `update email_deliveries set status = $4, attempts = $5, last_reply = $6, sent_at = $7, next_attempt_at = null,
                lease_expires_at = null, lease_token = null
          where environment_id = $1 and id = $2 and lease_token = $3 returning 1`,
        [email.environmentId, email.id, email.leaseToken, result.ok ? 'sent' : 'failed', attempts, result.reply, result.ok ? now : null],
      );
      if (rows.length === 0) return false;
      killIfArmed(this.deps.faultKillAt, 'email-outcome');
      await this.recordOutcome(email, attempts, result, now);
      return true;
    });
    if (!kept) return 'lease-lost';
    const log = {
      msg: result.ok ? 'e-mail sent' : 'e-mail failed',
      deliveryId: email.id,
      kind: email.kind,
      recipient: maskAddress(email.recipient),
      reply: result.reply,
    };
    if (result.ok) this.logger.log(log);
    else this.logger.warn(log);
    return result.ok ? 'sent' : 'failed';
  }

  /** The delivery's outcome event, in the caller's unit of work. */
  private async recordOutcome(email: ClaimedEmail, attempts: number, result: SendResult, now: Date): Promise<void> {
    const outcome = {
      sent: result.ok,
      deliveryId: email.id,
      kind: email.kind,
      invoiceId: email.invoiceId,
      ...(email.subscriptionId === null ? {} : { subscriptionId: email.subscriptionId }),
      recipient: maskAddress(email.recipient),
      messageId: email.messageId,
      attempts,
      lastReply: result.reply,
    };
    await this.deps.commands.handle(
      emailDeliveryStream(email.environmentId, email.id),
      emailDeliveryEvolver,
      (state) => decideRecordEmailOutcome(outcome, state, { now, newId: randomUUID }),
      {
        meta: { now, newId: randomUUID },
        metadata: { actor: 'system:email-dispatcher', requestId: null, correlationId: email.id, causationId: null },
      },
      { conflicts: { retries: 1 } },
    );
  }

  private async release(email: ClaimedEmail, dueAt: Date): Promise<boolean> {
    const kept = await queryRows(
      this.deps.dataSource.manager,
      `update email_deliveries set next_attempt_at = $4, lease_expires_at = null, lease_token = null
        where environment_id = $1 and id = $2 and lease_token = $3 returning 1`,
      [email.environmentId, email.id, email.leaseToken, dueAt],
    );
    return kept.length > 0;
  }

  /** The mail's subject, bodies and attachments; null while an invoice's document is not recorded. */
  private async contentOf(email: ClaimedEmail): Promise<MailContent | null> {
    if (email.kind === 'trial_will_end') return this.trialNotice(email);
    const invoiceId = email.invoiceId!;
    const invoice = foldStream(await this.deps.eventStore.readStream(invoiceStream(email.environmentId, invoiceId)), invoiceEvolver).state;
    if (invoice.status === 'none') throw new Error(`e-mail ${email.id}: its invoice is missing`);
    const link = this.deps.hostedLinks.urlOf(email.environmentId, invoice);
    const handle = invoice.handle ?? invoiceId;
    if (email.kind === 'invoice' || email.kind === 'credit_note') {
      const content = await this.deps.queries.execute(new InvoiceEmailQuery(email.environmentId, invoiceId));
      if (content === null) return null;
      const filename = `${content.handle ?? invoiceId}.pdf`;
      return { ...withHostedLink(content, link), attachments: [{ filename, content: content.pdf, contentType: 'application/pdf' }] };
    }
    const payment = foldStream(await this.deps.eventStore.readStream(paymentStream(email.environmentId, email.paymentId!)), paymentEvolver).state;
    if (payment.status === 'none') throw new Error(`e-mail ${email.id}: its payment is missing`);
    const amount = formatAmount(payment.amount, invoice.currency);
    const text =
      email.kind === 'receipt'
        ? `Thank you: we received your payment of ${amount} for invoice ${handle}.`
        : `We could not collect your payment of ${amount} for invoice ${handle}: ${payment.failureMessage ?? 'the payment failed'}. ` +
          'Please pay it online, or update your payment method.';
    const subject = email.kind === 'receipt' ? `Receipt for invoice ${handle}` : `Payment failed for invoice ${handle}`;
    return { subject, ...withHostedLink({ html: `<p>${escapeHtml(text)}</p>`, text }, link), attachments: [] };
  }

  private async trialNotice(email: ClaimedEmail): Promise<MailContent> {
    const stream = subscriptionStream(email.environmentId, email.subscriptionId!);
    const subscription = foldStream(await this.deps.eventStore.readStream(stream), subscriptionEvolver).state;
    if (subscription.status === 'none' || !subscription.trial) throw new Error(`e-mail ${email.id}: its subscription or trial is missing`);
    const text =
      `The free trial of your subscription ${subscription.handle} ends on ${subscription.trial.end}. ` +
      'From that day it is billed: the first invoice is booked then.';
    return { subject: `Your trial ends on ${subscription.trial.end}`, html: `<p>${escapeHtml(text)}</p>`, text, attachments: [] };
  }
}

interface MailContent {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly attachments: Mail.Attachment[];
}

/** Display only: a whole number of minor units over 10^digits, shown with exactly those digits, is printed exactly. */
function formatAmount(amount: number, currency: string): string {
  const digits = minorUnits(currency.toLowerCase());
  return `${new Intl.NumberFormat('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(amount / 10 ** digits)} ${currency}`;
}

/** The bodies with the invoice's hosted page (view, download, pay) linked at their end; unchanged without a link. */
function withHostedLink<Content extends { html: string; text: string }>(content: Content, link: string | null): Content {
  if (link === null) return content;
  return {
    ...content,
    html: `${content.html}\n<p><a href="${escapeHtml(link)}">View, download or pay this invoice online</a></p>`,
    text: `${content.text}\n\nView, download or pay this invoice online: ${link}`,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
