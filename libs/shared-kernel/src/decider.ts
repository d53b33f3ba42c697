/**
 * A domain event as the domain sees it: a stable string `type`, the schema
 * version of its `data`, and the data itself. Never derived from class names.
 */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly schemaVersion: number;
  readonly data: Data;
}

/** What every command receives besides its own fields: time and fresh ids come from outside. */
export interface CommandMetadata {
  readonly now: Date;
  /** Supplies new ids (uuids) in order; the domain never generates randomness itself. */
  readonly newId: () => string;
}

/**
 * The shape of an aggregate (emmett style): a pure fold and pure deciders.
 * Each command has its own `decide*` function in the aggregate module; this
 * type only names the parts the infrastructure needs to rebuild state.
 */
export interface Evolver<State, Event extends DomainEvent> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
}

export function foldEvents<State, Event extends DomainEvent>(
  evolver: Evolver<State, Event>,
  events: readonly Event[],
): State {
  return events.reduce(evolver.evolve, evolver.initialState());
}
