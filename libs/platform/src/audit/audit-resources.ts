import { Type } from '@nestjs/common';
import { Evolver, isUuid } from '@billing/shared-kernel';
import { AlongsideStream, BoundedContext, ResourceDeclaration, ResourcePresenter, StreamDefinition } from '../context/bounded-context';

/** A resource with a history route (a stream declaring a `path`), and as-of reads when it has a `view`. */
export interface HistoryResource {
  readonly type: string;
  readonly path: string;
  readonly streamType: string;
  readonly view?: { readonly evolver: Evolver<any, any>; readonly toView: (state: any) => unknown | null };
  readonly alongside?: AlongsideStream;
  readonly presenter?: Type<ResourcePresenter>;
  /** The stream id a route id names, or null (no such resource: 404). */
  streamIdOf(environmentId: string, routeId: string): string | null;
}

/**
 * The public names of the log, from the contexts' stream declarations: the
 * resource type of each stream type, the history resources, and what of
 * each event's data the public log shows.
 */
export class AuditResources {
  private readonly streams = new Map<string, StreamDefinition>();
  private readonly publicTypes = new Map<string, string>();
  private readonly streamTypesByPublicType = new Map<string, string[]>();
  readonly historyResources: readonly HistoryResource[];

  constructor(contexts: readonly BoundedContext[]) {
    const history: HistoryResource[] = [];
    for (const stream of contexts.flatMap((context) => context.streams)) {
      this.streams.set(stream.type, stream);
      const publicType = stream.resource?.type ?? stream.type.replace(/-/g, '_');
      this.publicTypes.set(stream.type, publicType);
      this.streamTypesByPublicType.set(publicType, [...(this.streamTypesByPublicType.get(publicType) ?? []), stream.type]);
      const resource = stream.resource;
      if (resource?.path) history.push(historyResource(stream, resource, resource.path));
    }
    this.historyResources = history;
  }

  /** `resource.type` of an event of this stream type. */
  publicTypeOf(streamType: string): string {
    return this.publicTypes.get(streamType) ?? streamType.replace(/-/g, '_');
  }

  /** Every public resource type, sorted (the values `resourceType` accepts). */
  get publicTypeNames(): string[] {
    return [...this.streamTypesByPublicType.keys()].sort();
  }

  streamTypesOf(publicType: string): readonly string[] | undefined {
    return this.streamTypesByPublicType.get(publicType);
  }

  /** The stream id a route id names for this public type (a uuid, or the declaration's mapping), or null. */
  streamIdOf(publicType: string, environmentId: string, routeId: string): string | null {
    const declared = (this.streamTypesOf(publicType) ?? []).map((type) => this.streams.get(type)?.resource).find((resource) => resource?.streamIdOf);
    if (declared?.streamIdOf) return declared.streamIdOf(environmentId, routeId);
    return isUuid(routeId) ? routeId.toLowerCase() : null;
  }

  /** The data an event shows in the public log. */
  publicData(streamType: string, type: string, data: unknown): unknown {
    const redact = this.streams.get(streamType)?.publicData;
    return redact ? redact(type, data) : data;
  }
}

function historyResource(stream: StreamDefinition, resource: ResourceDeclaration, path: string): HistoryResource {
  return {
    type: resource.type,
    path,
    streamType: stream.type,
    view: stream.view,
    alongside: resource.alongside,
    presenter: resource.presenter,
    streamIdOf: (environmentId, routeId) =>
      resource.streamIdOf ? resource.streamIdOf(environmentId, routeId) : isUuid(routeId) ? routeId.toLowerCase() : null,
  };
}
