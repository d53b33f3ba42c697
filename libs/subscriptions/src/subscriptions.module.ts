import { Module } from '@nestjs/common';
import { CustomerActiveSubscriptionsHandler } from './customer-subscriptions/customer-active-subscriptions.handler';
import { BillingEngine } from './billing/billing-engine';
import { GraceBooking } from './billing/grace-booking';
import { BillingInputs } from './billing/invoice-inputs';
import { UpcomingInvoices } from './billing/upcoming-invoice';
import { UpcomingInvoiceController } from './http/upcoming-invoice.controller';
import { ChangesController } from './http/changes.controller';
import { CancelSubscriptionHandler } from './cancel-subscription/cancel-subscription.handler';
import { EndDiscountHandler } from './end-discount/end-discount.handler';
import { CreateSubscriptionHandler } from './create-subscription/create-subscription.handler';
import { SubscriptionsController } from './http/subscriptions.controller';
import { ReactivateSubscriptionHandler } from './reactivate-subscription/reactivate-subscription.handler';
import { EndTrialHandler } from './end-trial/end-trial.handler';
import { PauseSubscriptionHandler } from './pause-subscription/pause-subscription.handler';
import { ResumeSubscriptionHandler } from './resume-subscription/resume-subscription.handler';
import { SubscriptionsReadModel } from './read-model/subscriptions.read-model';
import { CreateBillableMetricHandler } from './create-billable-metric/create-billable-metric.handler';
import { IngestUsageEventsHandler } from './ingest-usage-events/ingest-usage-events.handler';
import { SetUsageSettingsHandler } from './set-usage-settings/set-usage-settings.handler';
import { UsageController } from './http/usage.controller';
import { UsageStore } from './usage/usage-store';
import { BillableMetricExistsHandler } from './billable-metric-exists/billable-metric-exists.handler';
import { CancelUsageEventHandler } from './cancel-usage-event/cancel-usage-event.handler';
import { ChangeBilling } from './change-items/change-billing';
import { ChangeItemsHandler } from './change-items/change-items.handler';
import { DropChangeHandler } from './drop-change/drop-change.handler';

/** The HTTP surface, command handlers and billing engine of the subscriptions context (its definition is subscriptionsContext). */
@Module({
  controllers: [SubscriptionsController, UsageController, UpcomingInvoiceController, ChangesController],
  providers: [
    SubscriptionsReadModel,
    CreateSubscriptionHandler,
    CancelSubscriptionHandler,
    ReactivateSubscriptionHandler,
    EndTrialHandler,
    PauseSubscriptionHandler,
    ResumeSubscriptionHandler,
    EndDiscountHandler,
    BillingEngine,
    GraceBooking,
    BillingInputs,
    UpcomingInvoices,
    UsageStore,
    CreateBillableMetricHandler,
    SetUsageSettingsHandler,
    IngestUsageEventsHandler,
    BillableMetricExistsHandler,
    CancelUsageEventHandler,
    CustomerActiveSubscriptionsHandler,
    ChangeBilling,
    ChangeItemsHandler,
    DropChangeHandler,
  ],
})
export class SubscriptionsModule {}
