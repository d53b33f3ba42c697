import { Type } from '@nestjs/common';
import { DomainEvent, Evolver } from '@billing/shared-kernel';
import { Projection, Reactor, Upcaster } from '@billing/event-store';
import { ProblemType } from '../problems/problem-catalogue';

/** One event type a stream holds, with the schema version new events are written in. */
export interface EventTypeDefinition {
  readonly type: string;
  readonly schemaVersion: number;
}

/** A stream's event types from a record of type → schema version (a record typed by the event union misses none). */
export function eventTypesOf(events: Readonly<Record<string, number>>): EventTypeDefinition[] {
  return Object.entries(events).map(([type, schemaVersion]) => ({ type, schemaVersion }));
}

/** A stream type: what its ids are, which events it holds, and how older events are brought up to date. */
export interface StreamDefinition<State = unknown, Event extends DomainEvent = DomainEvent> {
  /** Stored in every event row; never renamed. */
  readonly type: string;
  /** How stream ids are made (documentation: e.g. "the invoice id, a random uuid"). */
  readonly idScheme: string;
  readonly events: readonly EventTypeDefinition[];
  /** Applied to every stored event of this stream when read; events of the current version pass unchanged. */
  readonly upcast?: Upcaster;
  /** How the stream renders its resource as the API returns it (for notifications carrying the resource, history and as-of reads). */
  readonly view?: { readonly evolver: Evolver<State, Event>; readonly toView: (state: State) => unknown | null };
  /** The public resource this stream is (GET /events, /{path}/{id}/history, `?asOf=`); see ResourceDeclaration. */
  readonly resource?: ResourceDeclaration;
  /**
   * What of an event's data the public log shows (GET /events, its export and
   * history): secrets the event carries (encrypted keys, payment method
   * tokens) are replaced here. Absent: the data as stored (upcast).
   */
  readonly publicData?: (type: string, data: unknown) => unknown;
}

/**
 * A stream as the API names it. `type` is the public resource type in the
 * event log (`resource.type` of GET /events, e.g. `tax_code`; `resource.id`
 * is always the stream id); a stream without a declaration appears under its
 * stream type with `-` as `_`.
 * With `path` (the collection's URL segment, e.g. `tax-codes`) the platform
 * adds `GET /{path}/{id}/history`; with a `view` too it answers `?asOf=` on
 * the collection's single-resource GET (`GET /{path}/{id}`) from the log.
 */
export interface ResourceDeclaration {
  readonly type: string;
  readonly path?: string;
  /**
   * The stream id of the resource a route names (`{id}` of `/{path}/{id}`),
   * or null when no resource can have that id (a 404). Absent: the id is the
   * stream id, a uuid (anything else is a 404).
   */
  readonly streamIdOf?: (environmentId: string, routeId: string) => string | null;
  /**
   * Another stream whose state the resource's view shows (a template group's
   * `isDefault` comes from the environment's default-group stream): as-of
   * reads fold it to the same instant and `apply` it to the view.
   */
  readonly alongside?: AlongsideStream;
  /**
   * What the resource's answers add to the view beyond what the log holds (an invoice's hosted page link, signed
   * with this server's key): a provider of the context's module. As-of answers go through it too, so they have
   * the members of the live answer.
   */
  readonly presenter?: Type<ResourcePresenter>;
}

/** Completes a resource's view (as of now or of an instant) into the answer its single-resource GET gives. */
export interface ResourcePresenter {
  present(environmentId: string, view: any): Promise<unknown>;
}

export interface AlongsideStream<State = any> {
  readonly streamType: string;
  readonly streamIdOf: (environmentId: string) => string;
  readonly evolver: Evolver<State, any>;
  readonly apply: (view: any, state: State) => unknown;
}

/**
 * A webhook notification a context publishes: named `resource.past_tense`
 * (public API: never renamed), sent for each event of `eventType`, carrying
 * the stream's resource view as of that event. `when` narrows it by the
 * event's data (e.g. invoice.settled only when the settlement settles).
 */
export interface NotificationDefinition {
  readonly name: string;
  readonly streamType: string;
  readonly eventType: string;
  readonly description: string;
  readonly when?: (data: unknown) => boolean;
}

/**
 * The contract of a bounded context: everything the app, migrations,
 * `npm run rebuild`, the problem catalogue and the webhook catalogue need is
 * derived from the list of these. Adding a context is adding its folder and
 * one line to that list.
 */
export interface BoundedContext {
  readonly name: string;
  readonly module: Type;
  /** TypeORM migration classes for its own tables, in order. */
  readonly migrations: readonly Function[];
  readonly streams: readonly StreamDefinition<any, any>[];
  /** Read models: pure, rebuildable, no side effects. */
  readonly projections: readonly Projection[];
  /** Side effects driven by events, as providers of the context's module; never replayed. */
  readonly reactors: readonly Type<Reactor>[];
  readonly notifications: readonly NotificationDefinition[];
  readonly problems: Readonly<Record<string, ProblemType>>;
}
