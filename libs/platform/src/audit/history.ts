import { CanActivate, Controller, ExecutionContext, Get, Inject, Injectable, Param, Query, RequestMethod, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ValidationError } from '@billing/shared-kernel';
import { Caller, AuthenticatedRequest, CallerContext } from '../http/request-context';
import { AsOfAnswer } from '../problems/problem';
import { Versioned } from '../http/versioned';
import { Page, readQuery } from '../http/paging';
import { problemResponse } from '../openapi/openapi';
import { HistoryResource } from './audit-resources';
import { DEFAULT_LOG_LIMIT, EventLog, instant, LogItem, MAX_LOG_LIMIT } from './event-log';
import { LOG_PAGE_SCHEMA } from './audit.controller';

/**
 * `GET /{path}/{id}/history` for one resource: a controller made from its
 * stream's declaration, so a context's resource gets its history route by
 * declaring `resource.path` (and a view) on its stream.
 */
export function historyController(resource: HistoryResource): Type {
  const tag = resource.path
    .split('-')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
  @ApiTags(tag)
  @Controller(resource.path)
  class ResourceHistoryController {
    constructor(@Inject(EventLog) private readonly log: EventLog) {}

    @Get(':id/history')
    @ApiOperation({
      summary: `The events of a ${resource.type.replace(/_/g, ' ')}, with actor and request id`,
      description:
        'In commit order, as GET /events shows them. Keyset paged like GET /events (at most `limit` events and LOG_PAGE_MAX_BYTES of JSON per page).',
    })
    @ApiParam({ name: 'id', description: `The id GET /${resource.path}/{id} takes.` })
    @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LOG_LIMIT, default: DEFAULT_LOG_LIMIT } })
    @ApiQuery({ name: 'pageToken', required: false, schema: { type: 'string' } })
    @ApiResponse({ status: 200, description: '`{items, nextPageToken}`', schema: LOG_PAGE_SCHEMA })
    @ApiResponse({ status: 404, ...problemResponse(`No such ${resource.type.replace(/_/g, ' ')} in this environment`) })
    @ApiResponse({ status: 422, ...problemResponse('Invalid, repeated or unknown query parameter (pointer /query/<name>)') })
    history(@Caller() caller: CallerContext, @Param('id') id: string, @Query() query: Record<string, unknown>): Promise<Page<LogItem>> {
      return this.log.history(caller.environmentId, resource, id, query);
    }
  }
  Object.defineProperty(ResourceHistoryController, 'name', { value: `${tag.replace(/ /g, '')}HistoryController` });
  return ResourceHistoryController;
}

const AS_OF_RESOURCE = Symbol('asOfResource');

/**
 * The query of a GET route that reads none (a single-resource GET, a
 * document, a probe): any parameter is a 422 at /query/<name>, as on the
 * lists, rather than silently ignored (`?asof=` must not answer the present).
 * On the single-resource GET of a history resource, `?asOf=<date-time>`
 * answers the resource as it was at that instant from the log
 * (EventLog.asOf) instead of the read model, with its version then as the
 * ETag; asOf is then the only parameter accepted, and a bad one is a 422 at
 * /query/asOf.
 * A guard (after authentication, which global guards do first), not an
 * interceptor: a route with any interceptor pays for Nest's observable
 * pipeline on every request, and these are the hottest reads.
 */
@Injectable()
export class QueryFreeReadGuard implements CanActivate {
  constructor(
    private readonly log: EventLog,
    private readonly modules: ModuleRef,
  ) {}

  canActivate(context: ExecutionContext): true | Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest & { query?: Record<string, unknown>; params?: Record<string, string> }>();
    const resource = Reflect.getMetadata(AS_OF_RESOURCE, context.getHandler()) as HistoryResource | undefined;
    if (!resource || !request.query || !Object.prototype.hasOwnProperty.call(request.query, 'asOf')) {
      readQuery(request.query, []);
      return true;
    }
    const asOf = instant('asOf', readQuery(request.query, ['asOf']).asOf);
    if (!asOf) throw ValidationError.at('/query/asOf', 'must be an RFC 3339 date-time with a zone');
    const [routeId] = Object.values(request.params ?? {});
    return this.asOfAnswer(request.caller!.environmentId, resource, routeId ?? '', asOf).then((result) => {
      throw new AsOfAnswer(result);
    });
  }

  /** The view from the log, completed by the resource's presenter like its live answer. */
  private async asOfAnswer(environmentId: string, resource: HistoryResource, routeId: string, asOf: Date): Promise<Versioned<unknown>> {
    const result = await this.log.asOf(environmentId, resource, routeId, asOf);
    if (!resource.presenter) return result;
    const presenter = this.modules.get(resource.presenter, { strict: false });
    return new Versioned(await presenter.present(environmentId, result.resource), result.version);
  }
}

/**
 * Puts QueryFreeReadGuard on every GET route that takes neither `@Query()` nor the
 * request (so reads no query), and on the single-resource GET of each history
 * resource (the GET route `:<param>` of a controller at the resource's path)
 * the asOf parameter too, in the OpenAPI document as well. Run before Nest
 * scans the modules, like interceptWriteRoutes. Applying it twice changes
 * nothing.
 */
export function interceptSingleResourceReads(controllers: readonly Type[], resources: readonly HistoryResource[]): void {
  for (const controller of controllers) {
    const base = normalise(Reflect.getMetadata(PATH_METADATA, controller));
    for (const name of Object.getOwnPropertyNames(controller.prototype)) {
      const handler: unknown = controller.prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      if ((Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined) !== RequestMethod.GET) continue;
      if (readsQuery(controller, name)) continue;
      const existing = (Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? [];
      if (existing.includes(QueryFreeReadGuard)) continue;
      Reflect.defineMetadata(GUARDS_METADATA, [...existing, QueryFreeReadGuard], handler);
      // The route as served (a controller path with `:id`, or a bare controller with `collection/:id`).
      const route = [base, normalise(Reflect.getMetadata(PATH_METADATA, handler))].filter((part) => part.length > 0).join('/');
      const match = /^(.+)\/:[A-Za-z_][A-Za-z0-9_]*$/.exec(route);
      const resource = match ? resources.find((candidate) => candidate.path === match[1] && candidate.view) : undefined;
      if (!resource) continue;
      Reflect.defineMetadata(AS_OF_RESOURCE, resource, handler);
      ApiQuery({
        name: 'asOf',
        required: false,
        description: `The ${resource.type.replace(/_/g, ' ')} as it was at this instant (RFC 3339 with a zone), computed from the event log; 404 if it did not exist yet. The ETag is its version then. No other query parameter is accepted with it.`,
        schema: { type: 'string', format: 'date-time' },
      })(controller.prototype, name, Object.getOwnPropertyDescriptor(controller.prototype, name)!);
    }
  }
}

/** Whether the handler takes the query (`@Query()`) or the whole request, and so answers its query itself. */
function readsQuery(controller: Type, name: string): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) as Record<string, unknown> | undefined) ?? {};
  return Object.keys(args).some((key) => [RouteParamtypes.QUERY, RouteParamtypes.REQUEST].some((type) => key.startsWith(`${type}:`)));
}

function normalise(path: unknown): string {
  const text = Array.isArray(path) ? String(path[0] ?? '') : String(path ?? '');
  return text.replace(/^\/+|\/+$/g, '');
}
