/**
 * The published surface of the e-mail context (`@billing/email`): its events (domain) and its definition.
 * No context uses it (context-map.js); the app composes it.
 */
export * from './domain';
export { emailContext } from './email.context';
export { emailMigrations } from './migrations';
