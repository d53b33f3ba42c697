import { Controller, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller, CallerContext, Clock } from '@billing/platform';
import { UpcomingInvoices } from '../billing/upcoming-invoice';
import { UpcomingInvoiceView } from '../upcoming-invoice-view';
import { SUBSCRIPTION, SUBSCRIPTION_ID_PIPE } from './subscription-docs';
import { UpcomingInvoiceDto } from './upcoming-invoice.dto';

@ApiTags('subscriptions')
@Controller('subscriptions')
export class UpcomingInvoiceController {
  constructor(
    private readonly upcoming: UpcomingInvoices,
    private readonly clock: Clock,
  ) {}

  @Get(':subscriptionId/upcoming-invoice')
  @SUBSCRIPTION.read({
    summary: 'The upcoming invoice of a subscription',
    description:
      'The invoice the billing engine would book at the next billAt, computed now (usage: the events received so far); nothing is written. ' +
      'It equals the invoice booked at billAt field by field (lines, tax, totals), bar id, number and timestamps, provided nothing changes in between. ' +
      'README "Invoice preview".',
    answer: 'The upcoming invoice',
    type: UpcomingInvoiceDto,
    conflict: 'Nothing is left to bill: the subscription has ended or ends without another invoice (no-upcoming-invoice)',
  })
  preview(@Caller() caller: CallerContext, @Param('subscriptionId', SUBSCRIPTION_ID_PIPE) subscriptionId: string): Promise<UpcomingInvoiceView> {
    return this.upcoming.preview(caller.environmentId, subscriptionId, this.clock.now());
  }
}
