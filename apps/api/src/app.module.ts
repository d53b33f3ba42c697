import { DynamicModule, Module, Type } from '@nestjs/common';
import { AppConfig, Clock, PlatformModule } from '@billing/platform';

/** Bounded contexts served by the API, one NestJS module each. */
export const CONTEXT_MODULES: Type[] = [];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: { clock?: Clock; extraModules?: Type[] } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot(config, { clock: options.clock }), ...CONTEXT_MODULES, ...(options.extraModules ?? [])],
    };
  }
}
