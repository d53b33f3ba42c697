import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { CommandMetadata } from '@billing/shared-kernel';
import type { CommandContext, EventMetadata } from '@billing/event-store';

/** Who is calling and for which environment, established by the guards. */
export interface CallerContext {
  readonly environmentId: string;
  readonly actor: string;
  readonly requestId: string;
  readonly correlationId: string;
}

export interface AuthenticatedRequest extends FastifyRequest {
  user?: { sub?: string; environments?: unknown };
  caller?: CallerContext;
}

/** Injects the caller context into a controller method. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): CallerContext => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.caller) throw new Error('Caller used on a route without the environment guard');
  return request.caller;
});

export function eventMetadataFor(caller: CallerContext, causationId: string | null = null): EventMetadata {
  return { actor: caller.actor, requestId: caller.requestId, correlationId: caller.correlationId, causationId };
}

/**
 * Time and ids for the domain come from here (and from a fake in tests), never from inside the domain.
 * The injected Clock is a ScopedClock: inside a request it answers the environment's time (its test
 * clock, see EnvironmentClock), so `commandContext(caller, clock)` dates a write in its environment.
 */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

export function commandMetadata(clock: Clock): CommandMetadata {
  return { now: clock.now(), newId: randomUUID };
}

/** What the command path needs besides the command itself: the domain's time and ids, and the audit metadata. */
export function commandContext(caller: CallerContext, clock: Clock): CommandContext {
  return { meta: commandMetadata(clock), metadata: eventMetadataFor(caller) };
}
