import { DynamicModule, Module, Type } from '@nestjs/common';
import { CatalogModule } from '@billing/catalog';
import { InvoicingModule } from '@billing/invoicing';
import { AppConfig, Clock, PlatformModule } from '@billing/platform';
import { WebhooksModule } from '@billing/webhooks';

/** Bounded contexts served by the API, one NestJS module each. */
export const CONTEXT_MODULES: Type[] = [InvoicingModule, CatalogModule, WebhooksModule];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: { clock?: Clock; extraModules?: Type[] } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forRoot(config, { clock: options.clock }), ...CONTEXT_MODULES, ...(options.extraModules ?? [])],
    };
  }
}
