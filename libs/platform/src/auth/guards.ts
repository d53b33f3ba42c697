import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { HttpProblem } from '../problems/problem';
import { AuthenticatedRequest } from '../http/request-context';
import { IS_PUBLIC } from './public.decorator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isPublic(reflector: Reflector, context: ExecutionContext): boolean {
  return reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true;
}

/** 401 for a missing, malformed, expired, wrongly signed or unaccepted-algorithm token. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    if (isPublic(this.reflector, context)) return true;
    return super.canActivate(context);
  }

  override handleRequest<User>(error: unknown, user: User): User {
    if (error || !user) {
      throw new HttpProblem(401, 'unauthorized', 'A valid bearer token is required.', undefined, { 'www-authenticate': 'Bearer' });
    }
    return user;
  }
}

/**
 * Every request names its environment in `x-environment` (a uuid: else 400),
 * and the token's `environments` claim must include it (else 403). The
 * resulting caller context scopes every read and write.
 */
@Injectable()
export class EnvironmentGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (isPublic(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers['x-environment'];
    if (typeof header !== 'string' || !UUID.test(header)) {
      throw new HttpProblem(400, 'invalid-environment-header', 'The x-environment header must be a uuid.', [
        { pointer: '/headers/x-environment', detail: header === undefined ? 'is required' : 'must be a uuid' },
      ]);
    }
    const environmentId = header.toLowerCase();
    const allowed = request.user?.environments;
    if (!Array.isArray(allowed) || !allowed.some((id) => typeof id === 'string' && id.toLowerCase() === environmentId)) {
      throw new HttpProblem(403, 'forbidden-environment', 'These credentials do not give access to this environment.');
    }
    const correlation = request.headers['x-correlation-id'];
    request.caller = {
      environmentId,
      actor: typeof request.user?.sub === 'string' ? request.user.sub : 'anonymous',
      requestId: String(request.id),
      correlationId: typeof correlation === 'string' && correlation.length <= 200 ? correlation : String(request.id),
    };
    return true;
  }
}
