import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AggregateStore } from '@billing/event-store';
import { APP_CONFIG, AppConfig, Clock, registerProblemTypes } from '@billing/platform';
import { loadWebhooksConfig, WEBHOOKS_CONFIG, WebhooksConfig } from './config/webhooks-config';
import { WebhookDispatcher } from './delivery/dispatcher';
import { WebhooksController } from './http/webhooks.controller';
import { SignatureKeyVault } from './key-vault';
import { WebhooksReadModel } from './read-model/webhooks-read-model';
import { RedeliverNotificationHandler } from './redeliver/redeliver.handler';
import { RotateWebhookKeyHandler } from './rotate-key/rotate-webhook-key.handler';
import { SubscribeWebhookHandler } from './subscribe/subscribe-webhook.handler';
import { UnsubscribeWebhookHandler } from './unsubscribe/unsubscribe-webhook.handler';
import { WebhooksLifecycle } from './webhooks.lifecycle';

registerProblemTypes({
  'invalid-url': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'The webhook URL is not an absolute URL, is longer than 2048 characters, contains a user name, password or fragment, or names port 0.',
  },
  'insecure-url': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'Webhook URLs must use https (plain http is accepted only for a loopback receiver when WEBHOOK_ALLOW_INSECURE_HTTP is set).',
  },
  'forbidden-address': {
    status: 422,
    title: 'Unprocessable Content',
    description:
      'The webhook URL points to a loopback, private, link-local, multicast or otherwise reserved address (in any notation: 2130706433, 0x7f.1, [::ffff:127.0.0.1], localhost…). Delivery re-checks every address the host resolves to.',
  },
  'unknown-version': {
    status: 422,
    title: 'Unprocessable Content',
    description: 'The X-version header names no supported webhook payload version (supported: 2022-03; omit it for the newest).',
  },
  'webhook-not-active': {
    status: 409,
    title: 'Conflict',
    description: 'The webhook subscription is disabled (its receiver answered 410 Gone) or deleted. Subscribe the URL again to resume.',
  },
});

@Module({
  controllers: [WebhooksController],
  providers: [
    {
      provide: WEBHOOKS_CONFIG,
      inject: [APP_CONFIG],
      // Production refuses to start without WEBHOOK_ENCRYPTION_KEY (thrown here, during bootstrap).
      useFactory: (appConfig: AppConfig) => loadWebhooksConfig(process.env, appConfig.isProduction),
    },
    SignatureKeyVault,
    WebhooksReadModel,
    {
      provide: WebhookDispatcher,
      inject: [DataSource, Clock, AggregateStore, SignatureKeyVault, WEBHOOKS_CONFIG, APP_CONFIG],
      useFactory: (
        dataSource: DataSource,
        clock: Clock,
        store: AggregateStore,
        vault: SignatureKeyVault,
        config: WebhooksConfig,
        appConfig: AppConfig,
      ) => new WebhookDispatcher({ dataSource, clock, store, vault, databaseUrl: appConfig.databaseUrl }, config),
    },
    WebhooksLifecycle,
    SubscribeWebhookHandler,
    UnsubscribeWebhookHandler,
    RotateWebhookKeyHandler,
    RedeliverNotificationHandler,
  ],
  exports: [WebhookDispatcher, SignatureKeyVault, WEBHOOKS_CONFIG],
})
export class WebhooksModule {}
