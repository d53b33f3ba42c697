import { CreateAnalyticsTables1764500500000 } from './1764500500000-create-analytics-tables';
import { AnalyticsUsageRevenue1764500520000 } from './1764500520000-analytics-usage-revenue';

export const analyticsMigrations: Function[] = [CreateAnalyticsTables1764500500000, AnalyticsUsageRevenue1764500520000];
