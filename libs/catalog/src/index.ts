export * from './domain';
export { catalogContext } from './catalog.context';
export { catalogMigrations } from './migrations';
export { BillableMetricExistsQuery } from './ports';
