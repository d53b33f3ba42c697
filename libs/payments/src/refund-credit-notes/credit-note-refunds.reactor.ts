import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CommandPath, Reactor, RecordedEvent } from '@billing/event-store';
import { CreditNoteIssuedData, INVOICE_STREAM, invoiceEvolver, invoiceStream } from '@billing/invoicing';
import { DomainError, uuidV5 } from '@billing/shared-kernel';
import { paymentEvolver, refundableAmount } from '../domain';
import { PaymentFlow } from '../payment-flow';
import { paymentStream } from '../streams';

/** Fixed namespace of the refund ids made for credit notes (a random v4 uuid chosen once; never change it). */
const CREDIT_NOTE_REFUND_NAMESPACE = '3c8e51a7-9b2d-4f06-a4e1-6d0b7c93f258';

/** The refund a credit note makes of one payment: one id per (credit note, payment), so a second run finds it. */
export function creditNoteRefundId(creditNoteId: string, paymentId: string): string {
  return uuidV5(`${creditNoteId}\u0000${paymentId}`, CREDIT_NOTE_REFUND_NAMESPACE);
}

/**
 * A credit note issued with a refundAmount (invoicing's CreditNoteIssued) is
 * refunded through the payments of the invoice it credits, oldest payment
 * first (the order their settlements reached the invoice), each refunding
 * what it still can until the amount is made: one refund per payment at
 * most, through the ordinary refund flow (reserved on the payment, made by
 * its provider's gateway, recorded; PaymentRefunded then unsettles the
 * invoice and tells invoicing the credit note's refund is made).
 *
 * Exactly once: each refund's id is derived from the credit note and the
 * payment, so a batch run again (a crash before the checkpoint moved) finds
 * the refunds it already reserved and counts them instead of refunding
 * again. The gateway calls commit on their own (never inside the reactor's
 * transaction: a refund must never be made for one that is not recorded).
 */
@Injectable()
export class CreditNoteRefundsReactor implements Reactor {
  readonly name = 'payments.credit-note-refunds';
  readonly streamTypes = [INVOICE_STREAM];
  readonly eventTypes = ['CreditNoteIssued'];
  private readonly logger = new Logger('CreditNoteRefunds');

  constructor(
    private readonly commands: CommandPath,
    private readonly flow: PaymentFlow,
  ) {}

  async react(events: readonly RecordedEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type !== 'CreditNoteIssued') continue;
      const data = event.data as CreditNoteIssuedData;
      if (data.refundAmount > 0) await this.refund(event, data);
    }
  }

  private async refund(event: RecordedEvent, { creditNoteId, invoiceId, refundAmount }: CreditNoteIssuedData): Promise<void> {
    const { environmentId } = event;
    const context = {
      meta: { now: event.occurredAt, newId: randomUUID },
      metadata: { actor: 'system:payments', requestId: null, correlationId: event.metadata.correlationId, causationId: event.eventId },
    };
    const invoice = (await this.commands.load(invoiceStream(environmentId, invoiceId), invoiceEvolver)).state;
    const paymentIds = invoice.status === 'none' ? [] : [...new Set(invoice.settlements.filter((s) => s.paymentId && s.amount > 0).map((s) => s.paymentId!))];
    let remaining = refundAmount;
    for (const paymentId of paymentIds) {
      if (remaining === 0) break;
      const refundId = creditNoteRefundId(creditNoteId, paymentId);
      const payment = (await this.commands.load(paymentStream(environmentId, paymentId), paymentEvolver)).state;
      if (payment.status === 'none') continue;
      // Made (or reserved) by an earlier run: counted, never asked again (a pending one is the resolver's).
      const earlier = payment.refunds.find((refund) => refund.id === refundId);
      if (earlier) {
        remaining -= Math.min(remaining, earlier.amount);
        continue;
      }
      const amount = Math.min(remaining, refundableAmount(payment));
      if (amount <= 0) continue;
      try {
        await this.flow.refund(environmentId, paymentId, { refundId, amount, creditNoteId }, context);
        remaining -= amount;
      } catch (error) {
        // A rule of the payment refuses it (refunded directly meanwhile): the next payment may still refund it.
        if (!(error instanceof DomainError)) throw error;
        this.logger.warn({ msg: 'a payment could not refund its part of a credit note', creditNoteId, paymentId, error: error.message });
      }
    }
    if (remaining > 0) {
      this.logger.error({ msg: "a credit note's refund could not be made in full", creditNoteId, invoiceId, refundAmount, notRefunded: remaining });
    }
  }
}
