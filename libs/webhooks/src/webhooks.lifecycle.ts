import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@billing/platform';
import { WEBHOOKS_CONFIG, WebhooksConfig } from './config/webhooks-config';
import { WebhookDispatcher } from './delivery/dispatcher';
import { DELIVERIES_CREATED } from './projections/fan-out.reactor';

/**
 * Wakes this process's dispatcher right after a fan-out transaction commits (other processes hear the NOTIFY), and runs the
 * dispatcher in worker processes.
 */
@Injectable()
export class WebhooksLifecycle implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
    private readonly dataSource: DataSource,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  onModuleInit(): void {
    const dispatcher = this.dispatcher;
    const wakeAfterFanOut: EntitySubscriberInterface = {
      afterTransactionCommit(event: TransactionCommitEvent) {
        if (event.queryRunner.data?.[DELIVERIES_CREATED]) {
          delete event.queryRunner.data[DELIVERIES_CREATED];
          dispatcher.wake();
        }
      },
    };
    this.dataSource.subscribers.push(wakeAfterFanOut);
    if (this.config.usesDevelopmentKey) {
      this.logger.warn({ msg: 'WEBHOOK_ENCRYPTION_KEY is not set: signature keys are encrypted with the public development key' });
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.appConfig.roles.worker || !this.config.dispatcherEnabled) return;
    await this.dispatcher.start();
  }

  /** Before the pool closes: in-flight sends finish and are recorded. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }
}
