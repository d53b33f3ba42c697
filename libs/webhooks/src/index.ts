export * from './domain';
export { WebhooksModule } from './webhooks.module';
export { webhooksMigrations } from './migrations';
