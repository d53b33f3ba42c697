import { BoundedContext } from '@billing/platform';
import { AnalyticsModule } from './analytics.module';
import { analyticsMigrations } from './migrations';
import { analyticsProjection } from './read-model/analytics.projection';

/**
 * Analytics (issue 28): revenue, receivables and MRR, from read models the `analytics.read-model` projection builds
 * out of invoicing's, payments', subscriptions' and the catalog's published events. It writes no events of its own.
 */
export const analyticsContext: BoundedContext = {
  name: 'analytics',
  module: AnalyticsModule,
  migrations: analyticsMigrations,
  streams: [],
  projections: [analyticsProjection],
  reactors: [],
  notifications: [],
  problems: {},
};
