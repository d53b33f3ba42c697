import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CommandPath, EventStore, ProjectionRunner } from '@billing/event-store';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ScopedClock } from '../clock/scoped-clock';

/**
 * Starts the projection runner once every bounded context has registered its
 * projections and reactors: every process listens for checkpoints (so its
 * writes can answer as soon as any process projected them), and a worker also
 * follows the whole log. Stops it, then the pool, on shutdown so in-flight
 * batches commit.
 */
@Injectable()
export class DatabaseLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Projector');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly runner: ProjectionRunner,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.roles.api && !this.config.roles.worker) return;
    await this.runner.start(this.config.databaseUrl!, { runContinuously: this.config.roles.worker });
    this.logger.log({ msg: 'projector started', follows: this.config.roles.worker ? this.runner.subscriberNames : 'own writes' });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

export const databaseProviders = [
  {
    provide: DataSource,
    inject: [APP_CONFIG],
    useFactory: async (config: AppConfig) => {
      const dataSource = new DataSource({
        type: 'postgres',
        url: config.databaseUrl!,
        synchronize: false,
        logging: false,
        applicationName: 'billing-service',
        extra: { max: config.databasePoolSize },
      });
      return dataSource.initialize();
    },
  },
  {
    provide: EventStore,
    inject: [DataSource, ScopedClock],
    // The base clock: an event's recordedAt is real time, whatever its environment's test clock says.
    useFactory: (dataSource: DataSource, clock: ScopedClock) => new EventStore(dataSource, () => clock.base.now()),
  },
  {
    provide: ProjectionRunner,
    inject: [DataSource, EventStore, APP_CONFIG],
    useFactory: (dataSource: DataSource, eventStore: EventStore, config: AppConfig) => {
      const logger = new Logger('Projector');
      return new ProjectionRunner(dataSource, eventStore, {
        readModelTimeoutMs: config.readModelTimeoutMs,
        logger: { error: (msg, meta) => logger.error({ msg, meta }), warn: (msg, meta) => logger.warn({ msg, meta }) },
      });
    },
  },
  {
    provide: CommandPath,
    inject: [DataSource, EventStore, ProjectionRunner],
    useFactory: (dataSource: DataSource, eventStore: EventStore, runner: ProjectionRunner) => new CommandPath(dataSource, eventStore, runner),
  },
  DatabaseLifecycle,
];
