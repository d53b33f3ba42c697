import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { CommandPath, Reactor, RecordedEvent, UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import { AddSettlement, decideAddSettlement, invoiceEvolver, invoiceStream } from '@billing/invoicing';
import { DomainError } from '@billing/shared-kernel';
import { PAYMENT_STREAM_TYPE, PaymentDisputeClosedData, PaymentDisputedData, PaymentRefundedData, PaymentSucceededData } from '../domain';

/**
 * A succeeded payment settles its invoice (a settlement of its amount,
 * reference = the payment id) and a refund unsettles it (a negative
 * settlement, reference = the refund id), through invoicing's published
 * decider: payments uses invoicing, never the other way round (the context
 * map). Both name the payment (so the invoice knows what its payments paid,
 * which bounds a credit note's refund), a refund also the credit note it was
 * made for. A dispute takes its amount back (reference `dispute:<id>`), and a
 * won dispute settles it again (`dispute-won:<id>`). Exactly once: the settlement is appended in the reactor's own batch
 * transaction, which also moves its checkpoint, and a reference the invoice
 * already has is never added again.
 */
// Its checkpoint's key, kept from when invoicing ran it: a new name would start it again from the first payment.
export const PAYMENT_SETTLEMENTS_REACTOR = 'invoicing.payment-settlements';

@Injectable()
export class PaymentSettlementsReactor implements Reactor {
  readonly name = PAYMENT_SETTLEMENTS_REACTOR;
  readonly streamTypes = [PAYMENT_STREAM_TYPE];
  readonly eventTypes = ['PaymentSucceeded', 'PaymentRefunded', 'PaymentDisputed', 'PaymentDisputeClosed'];
  private readonly logger = new Logger('PaymentSettlements');

  constructor(private readonly commands: CommandPath) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    const unit = new UnitOfWork(tx);
    try {
      await withinUnitOfWork(unit, async () => {
        for (const event of events) {
          const settlement = settlementOf(event);
          if (settlement) await this.settle(event, settlement);
        }
      });
    } finally {
      unit.close();
    }
  }

  private async settle(event: RecordedEvent, settlement: AddSettlement & { reference: string }): Promise<void> {
    const context = {
      meta: { now: event.occurredAt, newId: randomUUID },
      metadata: { actor: 'system:invoicing', requestId: null, correlationId: event.metadata.correlationId, causationId: event.eventId },
    };
    try {
      await this.commands.handle(
        invoiceStream(event.environmentId, settlement.invoiceId),
        invoiceEvolver,
        (state) =>
          state.status !== 'none' && state.settlements.some((existing) => existing.reference === settlement.reference)
            ? []
            : decideAddSettlement(settlement, state, context.meta),
        context,
      );
    } catch (error) {
      // A rule of the invoice refuses it (never expected: payments checks the invoice first): recorded in the log, not retried forever.
      if (!(error instanceof DomainError)) throw error;
      this.logger.error({
        msg: 'a payment could not be settled on its invoice',
        paymentEvent: event.eventId,
        invoiceId: settlement.invoiceId,
        error: error.message,
      });
    }
  }
}

function settlementOf(event: RecordedEvent): (AddSettlement & { reference: string }) | null {
  if (event.type === 'PaymentSucceeded') {
    const data = event.data as PaymentSucceededData;
    return {
      invoiceId: data.invoiceId,
      date: data.succeededAt.slice(0, 10),
      amount: data.amount,
      reference: data.paymentId,
      note: 'payment',
      paymentId: data.paymentId,
    };
  }
  if (event.type === 'PaymentRefunded') {
    const data = event.data as PaymentRefundedData;
    return {
      invoiceId: data.invoiceId,
      date: data.refundedAt.slice(0, 10),
      amount: -data.amount,
      reference: data.refundId,
      note: `refund of payment ${data.paymentId}`,
      paymentId: data.paymentId,
      refundedCreditNoteId: data.creditNoteId ?? null,
    };
  }
  if (event.type === 'PaymentDisputed') {
    // The disputed amount is held back by the gateway: the invoice is unpaid by it again until the dispute is won.
    const data = event.data as PaymentDisputedData;
    return {
      invoiceId: data.invoiceId,
      date: data.disputedAt.slice(0, 10),
      amount: -data.amount,
      reference: `dispute:${data.disputeId}`,
      note: `dispute ${data.disputeId} of payment ${data.paymentId}`,
      paymentId: data.paymentId,
    };
  }
  if (event.type === 'PaymentDisputeClosed' && (event.data as PaymentDisputeClosedData).won) {
    const data = event.data as PaymentDisputeClosedData;
    return {
      invoiceId: data.invoiceId,
      date: data.closedAt.slice(0, 10),
      amount: data.amount,
      reference: `dispute-won:${data.disputeId}`,
      note: `dispute ${data.disputeId} of payment ${data.paymentId} won`,
      paymentId: data.paymentId,
    };
  }
  return null;
}
