import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { APP_CONFIG, AppConfig } from '@billing/platform';
import { EmailDispatcher } from './outbox/email-dispatcher';
import { EMAIL_DELIVERIES_QUEUED } from './outbox/email-outbox.reactor';

/**
 * Runs the e-mail dispatcher in worker processes (woken right after this process queues deliveries; other
 * processes hear the NOTIFY), and says at start where mail goes.
 */
@Injectable()
export class EmailLifecycle implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Email');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    @Inject(EmailDispatcher) private readonly dispatcher: EmailDispatcher | null,
  ) {}

  onModuleInit(): void {
    const dispatcher = this.dispatcher;
    if (!dispatcher) return;
    const wakeAfterQueue: EntitySubscriberInterface = {
      afterTransactionCommit(event: TransactionCommitEvent) {
        if (event.queryRunner.data?.[EMAIL_DELIVERIES_QUEUED]) {
          delete event.queryRunner.data[EMAIL_DELIVERIES_QUEUED];
          dispatcher.wake();
        }
      },
    };
    this.dataSource.subscribers.push(wakeAfterQueue);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.roles.worker) return;
    const { transport, mailDir } = this.config.email;
    if (transport === 'none' || !this.dispatcher) {
      this.logger.warn({ msg: 'SMTP_URL is not set: no e-mail is sent (deliveries stay queued until it is)' });
      return;
    }
    if (transport === 'file') this.logger.log({ msg: 'SMTP_URL is not set: e-mails are written as .eml files', mailDir });
    await this.dispatcher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.dispatcher?.stop();
  }
}
