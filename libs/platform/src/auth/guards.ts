import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isUuid } from '../http/resource-id.pipe';
import { AuthenticatedRequest, CallerContext } from '../http/request-context';
import { HttpProblem } from '../problems/problem';
import { IS_PUBLIC } from './public.decorator';
import { JwtStrategy, TokenClaims } from './jwt.strategy';

const UNAUTHORIZED = () => new HttpProblem(401, 'unauthorized', 'A valid bearer token is required.', undefined, { 'www-authenticate': 'Bearer' });

/** A client's correlation id is recorded with every event: a short run of visible ASCII, else the request id. */
const CORRELATION_ID = /^[\x21-\x7e]{1,200}$/;

/** Verified tokens are remembered until they expire: the same client sends the same token many times. */
const CACHE_LIMIT = 10_000;

/**
 * The one place a request is authenticated and scoped: the bearer token is
 * verified by this app's passport-jwt strategy (401 for a missing, malformed,
 * expired, wrongly signed, unaccepted-algorithm or over-long-lived token), the
 * request names its environment in `x-environment` (a uuid: else 400), and the
 * token's `environments` claim must include it (else 403). Runs at most once
 * per request, whether the body-reading hook or the guard asks first.
 */
@Injectable()
export class Authenticator {
  private readonly pending = new WeakMap<AuthenticatedRequest, Promise<CallerContext>>();
  /** Keyed by the whole token, signature included: only a token verified before can hit. */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(private readonly strategy: JwtStrategy) {}

  authenticate(request: AuthenticatedRequest): Promise<CallerContext> {
    let result = this.pending.get(request);
    if (!result) {
      result = this.verify(request).then((claims) => scopeToEnvironment(request, claims));
      this.pending.set(request, result);
    }
    return result;
  }

  private async verify(request: AuthenticatedRequest): Promise<TokenClaims> {
    const header = request.headers.authorization;
    const cached = typeof header === 'string' ? this.verified.get(header) : undefined;
    if (cached && (cached.exp ?? 0) * 1000 > Date.now()) return cached;
    const claims = await this.runStrategy(request);
    if (typeof header === 'string') {
      if (this.verified.size >= CACHE_LIMIT) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(header, claims);
    }
    return claims;
  }

  /** Runs the strategy the way passport does (a derived object with success/fail/error), without passport's global registry. */
  private runStrategy(request: AuthenticatedRequest): Promise<TokenClaims> {
    return new Promise((resolve, reject) => {
      const attempt = Object.create(this.strategy) as JwtStrategy & {
        success(claims: TokenClaims): void;
        fail(): void;
        error(): void;
        authenticate(request: unknown, options: unknown): void;
      };
      attempt.success = (claims) => resolve(claims);
      attempt.fail = () => reject(UNAUTHORIZED());
      attempt.error = () => reject(UNAUTHORIZED());
      try {
        attempt.authenticate(request, {});
      } catch {
        // jsonwebtoken reads members of the verified payload before our checks run: a signed `null` throws here.
        reject(UNAUTHORIZED());
      }
    });
  }
}

function scopeToEnvironment(request: AuthenticatedRequest, claims: TokenClaims): CallerContext {
  request.user = claims;
  const header = request.headers['x-environment'];
  if (typeof header !== 'string' || !isUuid(header)) {
    throw new HttpProblem(400, 'invalid-environment-header', 'The x-environment header must be a uuid.', [
      { pointer: '/headers/x-environment', detail: header === undefined ? 'is required' : 'must be a uuid' },
    ]);
  }
  const environmentId = header.toLowerCase();
  const allowed = claims.environments;
  if (!Array.isArray(allowed) || !allowed.some((id) => typeof id === 'string' && id.toLowerCase() === environmentId)) {
    throw new HttpProblem(403, 'forbidden-environment', 'These credentials do not give access to this environment.');
  }
  const correlation = request.headers['x-correlation-id'];
  request.caller = {
    environmentId,
    actor: claims.sub,
    requestId: String(request.id),
    correlationId: typeof correlation === 'string' && CORRELATION_ID.test(correlation) ? correlation : String(request.id),
  };
  return request.caller;
}

/** Every route but the @Public() ones requires an authenticated caller in an allowed environment. */
@Injectable()
export class CallerGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true) return true;
    await this.authenticator.authenticate(context.switchToHttp().getRequest<AuthenticatedRequest>());
    return true;
  }
}
