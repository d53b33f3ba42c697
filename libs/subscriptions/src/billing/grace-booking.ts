import { CommandContext, CommandPath } from '@billing/event-store';
import { BookInvoiceCommand, Invoice, invoiceEvolver, invoiceStream, RequestedLine, UpdateInvoiceCommand } from '@billing/invoicing';
import { DomainError } from '@billing/shared-kernel';
import { Injectable, Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import { decideBookUsageInvoice, PendingBooking, Subscription, SubscriptionEvent, UsageCharge, usageChargeOf, usageLinesOf, withUsageLines } from '../domain';
import { BillingInputs, CATALOG_PRICING } from './invoice-inputs';

/**
 * The end of a usage draft's grace period, a step of the billing engine: the
 * draft's usage re-rated with every event counted by now, then booked.
 */
@Injectable()
export class GraceBooking {
  private readonly logger = new Logger('BillingEngine');

  constructor(
    private readonly commands: CommandPath,
    private readonly bus: CommandBus,
    private readonly inputs: BillingInputs,
  ) {}

  /** The usage of a pending draft's charges, rated with every event counted by now, and their invoice lines. */
  private async rerate(
    environmentId: string,
    subscription: Subscription,
    booking: PendingBooking,
    manager: EntityManager,
  ): Promise<{ usage: UsageCharge[]; lines: RequestedLine[] }> {
    const sources = this.inputs.sources(environmentId, subscription, manager);
    const prices = await sources.prices(subscription.items.map((item) => item.priceId));
    const usage: UsageCharge[] = [];
    const lines: RequestedLine[] = [];
    for (const charge of booking.usage) {
      const item = subscription.items.find((candidate) => candidate.id === charge.itemId)!;
      const rated = await sources.usage(item, charge.period);
      usage.push(usageChargeOf(item.id, charge.period, rated));
      lines.push(...usageLinesOf(item, prices.get(item.priceId)?.name ?? item.priceName, rated, charge.period, CATALOG_PRICING));
    }
    return { usage, lines };
  }

  /**
   * The end of a draft's grace period: its usage re-rated with every event
   * counted by now, its usage lines replaced (the other lines kept by id),
   * booked, and SubscriptionInvoiceBooked recorded — in the step's one
   * transaction, like a billing.
   */
  async bookAfterGrace(
    environmentId: string,
    subscription: Subscription,
    booking: PendingBooking,
    context: CommandContext,
    manager: EntityManager,
  ): Promise<SubscriptionEvent[]> {
    const loaded = await this.commands.load(invoiceStream(environmentId, booking.invoiceId), invoiceEvolver, manager);
    if (loaded.state.status === 'none') throw new Error(`the draft ${booking.invoiceId} of subscription ${subscription.id} does not exist`);
    const invoice = loaded.state as Invoice;
    if (invoice.status !== 'draft') {
      // Booked by hand during the grace period (and maybe voided since): it keeps what it says; later events count as corrections on the next invoice.
      return decideBookUsageInvoice({ subscriptionId: subscription.id, invoiceId: booking.invoiceId, usage: booking.usage }, subscription, context.meta);
    }
    let rerated: { usage: UsageCharge[]; lines: RequestedLine[] } | null;
    try {
      rerated = await this.rerate(environmentId, subscription, booking, manager);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // The usage cannot be rated now (its metric or pricing is gone): the draft is booked as billed, so the grace period still ends;
      // late events then count as corrections, which the next billing rates (or records as its failure).
      this.logger.warn({
        msg: 'usage could not be re-rated at the end of the grace period; booked as billed',
        environmentId,
        subscriptionId: subscription.id,
        invoiceId: booking.invoiceId,
        reason: error.message,
      });
      rerated = null;
    }
    if (rerated === null) {
      await this.bus.execute(new BookInvoiceCommand(environmentId, booking.invoiceId, invoice.date, context));
      return decideBookUsageInvoice({ subscriptionId: subscription.id, invoiceId: booking.invoiceId, usage: booking.usage }, subscription, context.meta);
    }
    const { usage, lines: usageLines } = rerated;
    const kept = invoice.lines.map((line): RequestedLine => ({
      id: line.id,
      quantity: line.quantity,
      unitAmount: line.unitAmount,
      title: line.title,
      description: line.description,
      sku: line.sku,
      periodStart: line.periodStart,
      periodEnd: line.periodEnd,
      discount: line.discount as RequestedLine['discount'],
      taxCode: line.tax.taxCode,
    }));
    const lines = withUsageLines(kept, booking.usageLines, usageLines);
    await this.bus.execute(
      new UpdateInvoiceCommand(environmentId, booking.invoiceId, { date: invoice.date, currency: invoice.currency, items: lines }, context),
    );
    await this.bus.execute(new BookInvoiceCommand(environmentId, booking.invoiceId, invoice.date, context));
    return decideBookUsageInvoice({ subscriptionId: subscription.id, invoiceId: booking.invoiceId, usage }, subscription, context.meta);
  }
}
