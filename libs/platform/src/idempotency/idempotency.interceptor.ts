import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { lastValueFrom, Observable, of } from 'rxjs';
import { StreamVersionConflictError } from '@billing/event-store';
import { AuthenticatedRequest, CallerContext } from '../http/request-context';
import { JsonText } from '../http/json-text';
import { responseHeadersOf, Versioned } from '../http/versioned';
import { renderProblem } from '../problems/problem-details.filter';
import { StoredResponse, StoredResponseReplay } from '../problems/problem';
import { toProblemParts } from '../problems/to-problem';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey, requestFingerprint } from './idempotency-key';
import { IdempotencyScope } from './idempotency-key';
import { IdempotencyStore, IdempotentOutcome, IdempotentRequest } from './idempotency.store';
import { OWN_COMMITS, withinKeyedRequest } from './own-commits';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * `Idempotency-Key` on every POST and PUT (put on each such route by
 * interceptWriteRoutes; GET and DELETE never see it). The
 * first request with a key runs inside the key's transaction and its
 * response is stored with it; the same request again gets that response
 * byte for byte with `Idempotent-Replayed: true`. Failures are kept too,
 * except 5xx and version conflicts, which leave no key behind so a retry
 * runs again. The read models are awaited after the commit, so a
 * read-model timeout (503) leaves a key whose replay is the committed result.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (request.method !== 'POST' && request.method !== 'PUT') return next.handle();
    const key = parseIdempotencyKey(request.raw.headersDistinct[IDEMPOTENCY_KEY_HEADER]);
    const caller = request.caller;
    // Without a key the request takes the plain path (no promise, no transaction of its own).
    if (key === undefined || !caller) return next.handle();
    return this.once(context, next, request, caller, key);
  }

  /** An own-commits command (see OwnCommits): the key checked before, the command run with ids made from it, the response kept after. */
  private async apart(
    scope: IdempotencyScope,
    request: IdempotentRequest,
    execute: () => Promise<StoredResponse>,
    keptFailure: (error: unknown) => StoredResponse | undefined,
  ): Promise<IdempotentOutcome> {
    const stored = await this.store.stored(scope, request);
    if (stored) return { response: stored, replayed: true };
    let response: StoredResponse;
    try {
      response = await withinKeyedRequest(`${scope.environmentId}\n${scope.subject}\n${scope.key}\n${request.fingerprint}`, execute);
    } catch (error) {
      const kept = keptFailure(error);
      if (!kept) throw error;
      response = kept;
    }
    // A concurrent twin that stored its answer first is the one that executed: this one answers that as its replay.
    return this.store.keep(scope, request, response);
  }

  private async once(
    context: ExecutionContext,
    next: CallHandler,
    request: AuthenticatedRequest,
    caller: CallerContext,
    key: string,
  ): Promise<Observable<unknown>> {
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? (request.method === 'POST' ? 201 : 200);
    const scope = { environmentId: caller.environmentId, subject: caller.actor, key };
    const fingerprinted = { method: request.method, path: request.url, fingerprint: requestFingerprint(request.method, request.url, request.body) };
    const execute = async () => toStoredResponse(status, await lastValueFrom(next.handle(), { defaultValue: undefined }));
    const keptFailure = (error: unknown) => (keepsKey(error) ? renderProblem(error, request) : undefined);
    const outcome = this.reflector.get<boolean | undefined>(OWN_COMMITS, context.getHandler())
      ? await this.apart(scope, fingerprinted, execute, keptFailure)
      : await this.store.once(scope, fingerprinted, execute, keptFailure);

    const reply = context.switchToHttp().getResponse<FastifyReply>();
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    if (outcome.response.status >= 400) throw new StoredResponseReplay(outcome.response);
    reply.headers(outcome.response.headers);
    // A string is sent as it is: the first answer and every replay are the same bytes.
    return of(outcome.response.body);
  }
}

/** A failure is an answer to keep unless retrying may succeed: a server error or a lost race (version conflict). */
function keepsKey(error: unknown): boolean {
  return toProblemParts(error).status < 500 && !(error instanceof StreamVersionConflictError);
}

function toStoredResponse(status: number, result: unknown): StoredResponse {
  if (result === undefined) return { status, headers: {}, body: '' };
  const resource = result instanceof Versioned ? result.resource : result;
  const headers = result instanceof Versioned ? responseHeadersOf(result) : {};
  return { status, headers: { 'content-type': JSON_CONTENT_TYPE, ...headers }, body: resource instanceof JsonText ? resource.text : JSON.stringify(resource) };
}
