import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { from, lastValueFrom, Observable } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthenticatedRequest } from '../http/request-context';
import { EnvironmentClock } from './environment-clock';
import { ScopedClock } from './scoped-clock';

/**
 * With TEST_CLOCKS on, an authenticated request runs in its environment's
 * time: the environment's now is read once, and the handler (and every
 * interceptor after this one) runs inside a clock scope of that instant.
 * Global, and registered only with TEST_CLOCKS on. Public routes: the base
 * clock, no query. What runs in real time whatever the environment's clock
 * (an Idempotency-Key's retention, webhook deliveries, gateway lookups) reads
 * `ScopedClock.base`, never this scope.
 */
@Injectable()
export class EnvironmentClockInterceptor implements NestInterceptor {
  constructor(
    private readonly environmentClock: EnvironmentClock,
    private readonly clock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
    if (!this.config.testClocks || !caller) return next.handle();
    return from(this.inEnvironmentTime(caller.environmentId, next));
  }

  private async inEnvironmentTime(environmentId: string, next: CallHandler): Promise<unknown> {
    const now = await this.environmentClock.now(environmentId);
    return this.clock.runAt(now, () => lastValueFrom(next.handle(), { defaultValue: undefined }));
  }
}
