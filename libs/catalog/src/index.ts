/**
 * The published surface of the catalog context: the one file other packages import, as
 * `@billing/catalog` (which ones may: context-map.js). It holds prices and products with their events
 * (domain), the catalog's definition, and the BillableMetricExistsQuery port (answered by
 * subscriptions, which owns billable metrics).
 */
export * from './domain';
export { catalogContext } from './catalog.context';
export { catalogMigrations } from './migrations';
export { BillableMetricExistsQuery } from './ports';
