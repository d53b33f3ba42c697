import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CommandPath } from '@billing/event-store';
import { APP_CONFIG, AppConfig, Clock } from '@billing/platform';
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
import { FanOutReactor } from './projections/fan-out.reactor';

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
      inject: [DataSource, Clock, CommandPath, SignatureKeyVault, WEBHOOKS_CONFIG, APP_CONFIG],
      useFactory: (
        dataSource: DataSource,
        clock: Clock,
        commands: CommandPath,
        vault: SignatureKeyVault,
        config: WebhooksConfig,
        appConfig: AppConfig,
      ) => new WebhookDispatcher({ dataSource, clock, commands, vault, databaseUrl: appConfig.databaseUrl }, config),
    },
    WebhooksLifecycle,
    FanOutReactor,
    SubscribeWebhookHandler,
    UnsubscribeWebhookHandler,
    RotateWebhookKeyHandler,
    RedeliverNotificationHandler,
  ],
  exports: [WebhookDispatcher, SignatureKeyVault, WEBHOOKS_CONFIG],
})
export class WebhooksModule {}
