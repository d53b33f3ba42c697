import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { PassportModule } from '@nestjs/passport';
import { EventStore } from '@billing/event-store';
import { AuditController } from './audit/audit.controller';
import { AuditResources } from './audit/audit-resources';
import { ChainVerifier } from './audit/chain-verifier';
import { EventLog } from './audit/event-log';
import { HeadSigner } from './audit/head-signer';
import { QueryFreeReadGuard, historyController, interceptSingleResourceReads } from './audit/history';
import { Authenticator, CallerGuard } from './auth/guards';
import { JwtStrategy } from './auth/jwt.strategy';
import { ClockDrivenWorkRegistry } from './clock/clock-driven-work';
import { EnvironmentClock } from './clock/environment-clock';
import { EnvironmentClockInterceptor } from './clock/environment-clock.interceptor';
import { ScopedClock } from './clock/scoped-clock';
import { TestClockController } from './clock/test-clock.controller';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { BoundedContext } from './context/bounded-context';
import { BOUNDED_CONTEXTS, ContextWiring } from './context/context-wiring';
import { NotificationCatalogue } from './context/notification-catalogue';
import { databaseProviders } from './database/database.providers';
import { PaymentTokenVault } from './payment-tokens/payment-token-vault';
import { HealthController } from './health/health.controller';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor';
import { IdempotencyPurger } from './idempotency/idempotency.purger';
import { IdempotencyStore } from './idempotency/idempotency.store';
import { controllersOf, interceptWriteRoutes } from './idempotency/write-routes';
import { Metrics, MetricsController } from './metrics/metrics';
import { Clock, SystemClock } from './http/request-context';
import { registerProblemTypes } from './problems/problem-catalogue';
import { ProblemDetailsFilter } from './problems/problem-details.filter';
import { ProblemsController } from './problems/problems.controller';

/**
 * The spine every bounded context stands on: configuration, the database,
 * event store, command path and projector, authentication and environment
 * scoping, idempotency keys, problem details, per-environment clocks, the
 * auditor's routes (event log, history, as-of reads, hash chain), and the
 * wiring of the contexts' definitions. Global, so contexts just inject what they need.
 *
 * `Clock` is a ScopedClock over `options.clock` (the system clock unless a
 * test gives one): inside a request it answers the environment's time (see
 * EnvironmentClockInterceptor), elsewhere the base clock. The test-clock
 * routes exist only with TEST_CLOCKS on.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: AppConfig, options: { clock?: Clock; contexts: readonly BoundedContext[] }): DynamicModule {
    for (const context of options.contexts) registerProblemTypes(context.problems);
    const contextControllers = options.contexts.flatMap((context) => controllersOf(context.module));
    // The auditor's routes: the log, the chain, and per declared resource its history and as-of reads.
    const historyResources = new AuditResources(options.contexts).historyResources;
    const controllers = [
      HealthController,
      ProblemsController,
      MetricsController,
      AuditController,
      ...historyResources.map(historyController),
      ...(config.testClocks ? [TestClockController] : []),
    ];
    interceptSingleResourceReads([...controllers, ...contextControllers], historyResources);
    interceptWriteRoutes([...controllers, ...contextControllers], IdempotencyInterceptor);
    return {
      module: PlatformModule,
      imports: [CqrsModule.forRoot(), PassportModule.register({ session: false })],
      controllers,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: ScopedClock, useValue: new ScopedClock(options.clock ?? new SystemClock()) },
        { provide: Clock, useExisting: ScopedClock },
        EnvironmentClock,
        ClockDrivenWorkRegistry,
        { provide: BOUNDED_CONTEXTS, useValue: options.contexts },
        ...databaseProviders,
        {
          provide: NotificationCatalogue,
          inject: [EventStore],
          useFactory: (eventStore: EventStore) => new NotificationCatalogue(options.contexts, eventStore),
        },
        ContextWiring,
        Metrics,
        JwtStrategy,
        Authenticator,
        { provide: APP_GUARD, useClass: CallerGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        IdempotencyStore,
        IdempotencyPurger,
        IdempotencyInterceptor,
        EventLog,
        ChainVerifier,
        HeadSigner,
        PaymentTokenVault,
        QueryFreeReadGuard,
        // Global interceptors run before route ones: the environment's clock scope encloses an Idempotency-Key's transaction.
        // Without test clocks there is none, and reads take Nest's path without interceptors.
        ...(config.testClocks ? [{ provide: APP_INTERCEPTOR, useClass: EnvironmentClockInterceptor }] : []),
      ],
      exports: [
        APP_CONFIG,
        Clock,
        ScopedClock,
        EnvironmentClock,
        ClockDrivenWorkRegistry,
        Authenticator,
        IdempotencyStore,
        ...databaseProviders,
        NotificationCatalogue,
        Metrics,
        CqrsModule,
        EventLog,
        ChainVerifier,
        HeadSigner,
        PaymentTokenVault,
      ],
    };
  }
}
