import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import passport from 'passport';
import { isUuid } from '../http/resource-id.pipe';
import { AuthenticatedRequest, CallerContext } from '../http/request-context';
import { HttpProblem } from '../problems/problem';
import { IS_PUBLIC } from './public.decorator';
import { TokenClaims } from './jwt.strategy';

const UNAUTHORIZED = () =>
  new HttpProblem(401, 'unauthorized', 'A valid bearer token is required.', undefined, { 'www-authenticate': 'Bearer' });

const pending = new WeakMap<AuthenticatedRequest, Promise<CallerContext>>();

/**
 * The one place a request is authenticated and scoped: the bearer token is
 * verified by the passport-jwt strategy (401 for a missing, malformed,
 * expired, wrongly signed, unaccepted-algorithm or over-long-lived token), the
 * request names its environment in `x-environment` (a uuid: else 400), and the
 * token's `environments` claim must include it (else 403). Runs at most once
 * per request, whether the body-reading hook or the guard asks first.
 */
export function authenticate(request: AuthenticatedRequest): Promise<CallerContext> {
  let result = pending.get(request);
  if (!result) {
    result = verifyToken(request).then((claims) => scopeToEnvironment(request, claims));
    pending.set(request, result);
  }
  return result;
}

function verifyToken(request: AuthenticatedRequest): Promise<TokenClaims> {
  return new Promise((resolve, reject) => {
    passport.authenticate('jwt', { session: false }, (error: unknown, claims: TokenClaims | false) => {
      if (error || !claims) reject(UNAUTHORIZED());
      else resolve(claims);
    })(request, undefined, (error: unknown) => reject(error ?? UNAUTHORIZED()));
  });
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
    actor: typeof claims.sub === 'string' ? claims.sub : 'anonymous',
    requestId: String(request.id),
    correlationId: typeof correlation === 'string' && correlation.length <= 200 ? correlation : String(request.id),
  };
  return request.caller;
}

/** Every route but the @Public() ones requires an authenticated caller in an allowed environment. */
@Injectable()
export class CallerGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true) return true;
    await authenticate(context.switchToHttp().getRequest<AuthenticatedRequest>());
    return true;
  }
}
