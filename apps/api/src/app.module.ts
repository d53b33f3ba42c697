import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, BoundedContext, Clock, PlatformModule } from '@billing/platform';
import { CONTEXTS } from './contexts';

@Module({})
export class AppModule {
  /** The platform plus one module per bounded context (tests may add contexts of their own). */
  static forRoot(config: AppConfig, options: { clock?: Clock; extraContexts?: readonly BoundedContext[] } = {}): DynamicModule {
    const contexts = [...CONTEXTS, ...(options.extraContexts ?? [])];
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot(config, { clock: options.clock, contexts }), ...contexts.map((context) => context.module)],
    };
  }
}
