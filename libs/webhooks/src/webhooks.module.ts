import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CommandPath } from '@billing/event-store';
import { APP_CONFIG, AppConfig, Metrics, ScopedClock } from '@billing/platform';
import { WEBHOOKS_CONFIG, WebhooksConfig, webhooksConfigOf } from './config/webhooks-config';
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
    { provide: WEBHOOKS_CONFIG, inject: [APP_CONFIG], useFactory: webhooksConfigOf },
    SignatureKeyVault,
    WebhooksReadModel,
    {
      provide: WebhookDispatcher,
      inject: [DataSource, ScopedClock, CommandPath, SignatureKeyVault, WEBHOOKS_CONFIG, APP_CONFIG, Metrics],
      useFactory: (
        dataSource: DataSource,
        clock: ScopedClock,
        commands: CommandPath,
        vault: SignatureKeyVault,
        config: WebhooksConfig,
        appConfig: AppConfig,
        metrics: Metrics,
      ) => {
        const outcomes = metrics.counter('webhook_deliveries_total', 'Webhook delivery attempts by outcome.', ['outcome']);
        metrics.gauge('webhook_deliveries_pending', 'Deliveries waiting to be sent (all environments).', [], async (gauge) => {
          const [row] = await dataSource.query(`select count(*)::int as pending from webhook_deliveries where status = 'pending'`);
          gauge.set(row.pending);
        });
        // The dispatcher serves every environment: it runs on the base clock, never a request's environment time.
        return new WebhookDispatcher(
          { dataSource, clock: clock.base, commands, vault, databaseUrl: appConfig.databaseUrl, outcomes, faultKillAt: appConfig.faultKillAt },
          config,
        );
      },
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
