import { CreateAnalyticsTables1764500500000 } from './1764500500000-create-analytics-tables';
import { AnalyticsUsageRevenue1764500520000 } from './1764500520000-analytics-usage-revenue';
import { AnalyticsCustomerDiscounts1764600200000 } from './1764600200000-analytics-customer-discounts';
import { AnalyticsInvoicesLz41764600620000 } from './1764600620000-analytics-invoices-lz4';
import { AnalyticsTrackedInvoices1764600920000 } from './1764600920000-analytics-tracked-invoices';
import { RedactAnalyticsSubscriptionPaymentTokens1764601120000 } from './1764601120000-redact-analytics-subscription-payment-tokens';
export const analyticsMigrations: Function[] = [
  CreateAnalyticsTables1764500500000,
  AnalyticsUsageRevenue1764500520000,
  AnalyticsCustomerDiscounts1764600200000,
  AnalyticsInvoicesLz41764600620000,
  AnalyticsTrackedInvoices1764600920000,
  RedactAnalyticsSubscriptionPaymentTokens1764601120000,
];
