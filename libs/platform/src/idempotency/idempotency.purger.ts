import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { WorkerLoop } from '../workers/worker-loop';
import { IdempotencyStore } from './idempotency.store';

const PURGE_EVERY_MS = 60_000;

/** In worker processes: deletes expired Idempotency-Keys every minute (an expired key already counts as absent). */
@Injectable()
export class IdempotencyPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private readonly loop = new WorkerLoop(PURGE_EVERY_MS, () => this.purge());

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.roles.worker) this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  private async purge(): Promise<void> {
    try {
      const purged = await this.store.purgeExpired();
      if (purged > 0) this.logger.log({ msg: 'expired idempotency keys purged', purged });
    } catch (error) {
      this.logger.warn({ msg: 'purging expired idempotency keys failed; retried next minute', error: (error as Error).message });
    }
  }
}
