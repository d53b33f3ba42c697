/**
 * The published surface of the analytics context (`@billing/analytics`): its definition. No context uses it
 * (context-map.js); the app composes it.
 */
export { analyticsContext } from './analytics.context';
export { analyticsMigrations } from './migrations';
