import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { IdempotencyStore } from './idempotency.store';

const PURGE_EVERY_MS = 60_000;

/** In worker processes: deletes expired Idempotency-Keys every minute (an expired key already counts as absent). */
@Injectable()
export class IdempotencyPurger implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Idempotency');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.roles.worker) return;
    this.timer = setInterval(() => void this.purge(), PURGE_EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
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
