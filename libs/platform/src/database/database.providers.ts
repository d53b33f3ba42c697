import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AggregateStore, EventStore, ProjectionRunner } from '@billing/event-store';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/**
 * Starts the projection runner once every bounded context has registered its
 * projections (they do so in onModuleInit), if this process runs the worker
 * role; stops it, then the pool, on shutdown so in-flight batches commit.
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
    if (!this.config.roles.worker) return;
    await this.runner.start(this.config.databaseUrl!);
    this.logger.log({ msg: 'projector started', projections: this.runner.projectionNames });
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
  { provide: EventStore, inject: [DataSource], useFactory: (dataSource: DataSource) => new EventStore(dataSource) },
  {
    provide: ProjectionRunner,
    inject: [DataSource, EventStore],
    useFactory: (dataSource: DataSource, eventStore: EventStore) => {
      const logger = new Logger('Projector');
      return new ProjectionRunner(dataSource, eventStore, [], {
        logger: { error: (msg, meta) => logger.error({ msg, meta }), warn: (msg, meta) => logger.warn({ msg, meta }) },
      });
    },
  },
  {
    provide: AggregateStore,
    inject: [EventStore, ProjectionRunner],
    useFactory: (eventStore: EventStore, runner: ProjectionRunner) => new AggregateStore(eventStore, runner),
  },
  DatabaseLifecycle,
];
