import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { from, lastValueFrom, Observable } from 'rxjs';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthenticatedRequest } from '../http/request-context';
import { EnvironmentClock } from './environment-clock';
import { ScopedClock } from './scoped-clock';

/**
 * With TEST_CLOCKS on, an authenticated request runs in its environment's
 * time: the environment's now is read once, and the handler (and every
 * interceptor after this one, the Idempotency-Key's among them) runs inside a
 * clock scope of that instant. Registered before the IdempotencyInterceptor so
 * a key's timestamps are the environment's too. Public routes and TEST_CLOCKS
 * off: the base clock, no query.
 */
@Injectable()
export class EnvironmentClockInterceptor implements NestInterceptor {
  constructor(
    private readonly environmentClock: EnvironmentClock,
    private readonly clock: ScopedClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (!this.config.testClocks) return next.handle();
    const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
    if (!caller) return next.handle();
    const now = await this.environmentClock.now(caller.environmentId);
    return from(this.clock.runAt(now, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}
