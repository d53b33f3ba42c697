import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { PassportModule } from '@nestjs/passport';
import { CallerGuard } from './auth/guards';
import { JwtStrategy } from './auth/jwt.strategy';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { databaseProviders } from './database/database.providers';
import { ResourceViews } from './database/resource-views';
import { HealthController } from './health/health.controller';
import { Clock, SystemClock } from './http/request-context';
import { ProblemDetailsFilter } from './problems/problem-details.filter';
import { ProblemsController } from './problems/problems.controller';

/**
 * The spine every bounded context stands on: configuration, the database and
 * event store, the projector, authentication and environment scoping, and
 * problem details. Global, so contexts just inject what they need.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: AppConfig, options: { clock?: Clock } = {}): DynamicModule {
    return {
      module: PlatformModule,
      imports: [CqrsModule.forRoot(), PassportModule.register({ session: false })],
      controllers: [HealthController, ProblemsController],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: Clock, useValue: options.clock ?? new SystemClock() },
        ...databaseProviders,
        ResourceViews,
        JwtStrategy,
        { provide: APP_GUARD, useClass: CallerGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
      exports: [APP_CONFIG, Clock, ...databaseProviders, ResourceViews, CqrsModule],
    };
  }
}
