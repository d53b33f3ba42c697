import { applyDecorators, HttpCode, Type } from '@nestjs/common';
import {
  ApiBody,
  ApiBodyOptions,
  ApiHeader,
  ApiHeaderOptions,
  ApiOperation,
  ApiParam,
  ApiParamOptions,
  ApiQuery,
  ApiQueryOptions,
  ApiResponse,
  ApiResponseCommonMetadata,
} from '@nestjs/swagger';
import { ApiNoInput, ApiPageQuery, problemResponse } from './openapi';

type HeadersObject = ApiResponseCommonMetadata['headers'];

/** What the routes of one resource share in the OpenAPI document. */
export interface ResourceDocs {
  /** The answer's schema. */
  type: Type<unknown>;
  /** The answer's headers (its ETag, for If-Match). */
  headers?: HeadersObject;
  /** The path parameter naming one resource. */
  id?: ApiParamOptions;
  /** The If-Match header of a write based on a version. */
  ifMatch?: ApiHeaderOptions;
  /** The 404 of a route naming one resource. */
  notFound?: string;
}

/** What one route says of itself; the rest comes from its resource. */
export interface RouteDocs {
  summary: string;
  description?: string;
  /** The description of the successful answer. */
  answer?: string;
  /** The request body: a DTO, or ApiBody's options (e.g. an optional body). */
  body?: Type<unknown> | ApiBodyOptions;
  /** The success status, where it is not the kind's (a 202). */
  status?: number;
  /** The answer's schema, where it is not the resource's (a page, a computed figure): then the resource's headers do not apply either. */
  type?: Type<unknown> | null;
  /** The answer's headers, where they are not the resource's (a Location beside the ETag). */
  headers?: HeadersObject;
  /** Path parameters after the resource's id (a discount of a subscription). */
  params?: ApiParamOptions[];
  /** Query parameters (a list's filters), in the order they are written; 'page' places the page query among them (a list's comes first otherwise). */
  queries?: (ApiQueryOptions | 'page')[];
  notFound?: string;
  /** The 409: what the resource's state refuses. */
  conflict?: string;
  /** The 422: what input is refused. */
  invalid?: string;
  /** Other problem answers, by status (a 503 of the route's own). */
  problems?: Record<number, string>;
  /** false: a write that takes no If-Match (it is not based on a version the caller read). */
  ifMatch?: false;
}

const INVALID_QUERY = 'Invalid, repeated or unknown query parameter (pointer /query/<name>)';
const INVALID_ACTION = 'A body with any property, or a malformed If-Match (/headers/if-match)';

/**
 * The OpenAPI decorators of each kind of route of one resource, so that a
 * controller says only what is its own (summary, answer, what is refused):
 *
 *     const COUPON = resourceDocs({ type: CouponDto, headers: ETAG, id: COUPON_ID, ifMatch: IF_MATCH, notFound: 'No such coupon in this environment' });
 *     @Put(':couponId/archive')
 *     @COUPON.action({ summary: 'Archive a coupon', answer: 'The archived coupon', conflict: 'Already archived (coupon-archived), …' })
 *
 * Each kind applies what a hand-written stack of the same decorators would, in
 * the same order: the served document (and the typed client made from it) is
 * the same either way.
 */
export function resourceDocs(resource: ResourceDocs) {
  return {
    /** POST: 201 with the new resource; no id, no If-Match. */
    create: (route: RouteDocs) => documented(resource, { status: 201, ...route }, { id: false, ifMatch: false }),
    /** GET of a page of the resource (`type`: the page's schema). */
    list: (route: RouteDocs & { type: Type<unknown> }) =>
      documented(resource, { status: 200, invalid: INVALID_QUERY, ...route }, { id: false, ifMatch: false, page: true }),
    /** A read of one resource by its id (or a POST that computes from it and stores nothing). */
    read: (route: RouteDocs) => documented(resource, { status: 200, ...route }, { id: true, ifMatch: false }),
    /** A change of one resource with a body, based on the version If-Match names. */
    write: (route: RouteDocs) => documented(resource, { status: 200, ...route }, { id: true, ifMatch: true }),
    /** An action on one resource that takes no input (`{}` or no body), based on the version If-Match names. */
    action: (route: RouteDocs) => documented(resource, { status: 200, invalid: INVALID_ACTION, ...route }, { id: true, ifMatch: true, noInput: true }),
  };
}

interface Kind {
  id: boolean;
  ifMatch: boolean;
  page?: boolean;
  noInput?: boolean;
}

function documented(resource: ResourceDocs, route: RouteDocs & { status: number }, kind: Kind): MethodDecorator {
  const notFound = route.notFound ?? resource.notFound;
  const decorators = [
    HttpCode(route.status),
    ApiOperation(route.description === undefined ? { summary: route.summary } : { summary: route.summary, description: route.description }),
    ...queriesOf(route, kind).map((query) => (query === 'page' ? ApiPageQuery() : ApiQuery(query))),
    kind.id && resource.id ? ApiParam(resource.id) : undefined,
    ...(route.params ?? []).map((param) => ApiParam(param)),
    kind.ifMatch && route.ifMatch !== false && resource.ifMatch ? ApiHeader(resource.ifMatch) : undefined,
    kind.noInput ? ApiNoInput() : undefined,
    route.body === undefined ? undefined : ApiBody(typeof route.body === 'function' ? { type: route.body } : route.body),
    ApiResponse(answer(resource, route)),
    kind.id && notFound !== undefined ? ApiResponse({ status: 404, ...problemResponse(notFound) }) : undefined,
    route.conflict === undefined ? undefined : ApiResponse({ status: 409, ...problemResponse(route.conflict) }),
    route.invalid === undefined ? undefined : ApiResponse({ status: 422, ...problemResponse(route.invalid) }),
    ...Object.entries(route.problems ?? {}).map(([status, text]) => ApiResponse({ status: Number(status), ...problemResponse(text) })),
  ].filter((decorator) => decorator !== undefined);
  // Stacked decorators apply from the bottom up; applyDecorators applies in order.
  return applyDecorators(...decorators.reverse());
}

/** The success response; what it lacks has no member at all (an empty member's place would move the members after it in the document). */
function answer(resource: ResourceDocs, route: RouteDocs & { status: number }) {
  const headers = route.headers ?? (route.type === undefined ? resource.headers : undefined);
  const type = route.type === null ? undefined : (route.type ?? resource.type);
  return { status: route.status, ...defined({ description: route.answer, type, headers }) };
}

function queriesOf(route: RouteDocs, kind: Kind): (ApiQueryOptions | 'page')[] {
  const queries = route.queries ?? [];
  return kind.page && !queries.includes('page') ? ['page', ...queries] : queries;
}

function defined<T extends object>(members: T): Partial<T> {
  return Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined)) as Partial<T>;
}
