import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EventStore, ProjectionRunner } from '@billing/event-store';
import { BoundedContext } from './bounded-context';

export const BOUNDED_CONTEXTS = Symbol('BOUNDED_CONTEXTS');

/**
 * Connects each context's definition to the spine once every module exists:
 * its streams' upcasters to the event store, its projections and reactors to
 * the runner. Nothing is registered anywhere else.
 */
@Injectable()
export class ContextWiring implements OnModuleInit {
  constructor(
    @Inject(BOUNDED_CONTEXTS) private readonly contexts: readonly BoundedContext[],
    private readonly eventStore: EventStore,
    private readonly runner: ProjectionRunner,
    private readonly moduleRef: ModuleRef,
  ) {}

  onModuleInit(): void {
    for (const context of this.contexts) {
      for (const stream of context.streams) if (stream.upcast) this.eventStore.registerUpcaster(stream.type, stream.upcast);
      for (const projection of context.projections) this.runner.registerProjection(projection);
      for (const reactor of context.reactors) this.runner.registerReactor(this.moduleRef.get(reactor, { strict: false }));
    }
  }
}
