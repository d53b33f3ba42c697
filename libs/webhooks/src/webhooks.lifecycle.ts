import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { ProjectionRunner } from '@billing/event-store';
import { APP_CONFIG, AppConfig, ResourceViews } from '@billing/platform';
import { WEBHOOKS_CONFIG, WebhooksConfig } from './config/webhooks-config';
import { WebhookDispatcher } from './delivery/dispatcher';
import { DELIVERIES_CREATED, fanOutProjection } from './projections/fan-out.projection';
import { subscriptionsProjection } from './projections/subscriptions.projection';

/**
 * Registers the projections, wakes this process's dispatcher right after a
 * fan-out transaction commits (other processes hear the NOTIFY), and runs the
 * dispatcher in worker processes.
 */
@Injectable()
export class WebhooksLifecycle implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
    private readonly runner: ProjectionRunner,
    private readonly views: ResourceViews,
    private readonly dataSource: DataSource,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  onModuleInit(): void {
    this.runner.register(subscriptionsProjection);
    this.runner.register(fanOutProjection(this.views));
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
