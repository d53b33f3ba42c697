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
 * An evolver answers the state unchanged for an event type it does not know
 * (a stream shared with newer code, an event another context added later):
 * it never throws, so reading a stream never fails on what it cannot use.
 */
export interface Evolver<State, Event extends DomainEvent> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
}

/**
 * A whole aggregate in one value (EventSourcing.NodeJS's decider): the fold of
 * `Evolver` and `decide`, which answers a command, given the current state,
 * with the events to append (or throws a domain error). Time and ids come in
 * the command, never from the decider. Code that only folds (loading a
 * stream, a projection's view) keeps asking for an `Evolver`, which a
 * `Decider` is.
 */
export interface Decider<State, Command, Event extends DomainEvent> extends Evolver<State, Event> {
  readonly decide: (command: Command, state: State) => readonly Event[];
}

/** The one fold: `events` applied in order to `from` (by default the initial state). */
export function foldEvents<State, Event extends DomainEvent>(
  evolver: Evolver<State, Event>,
  events: readonly Event[],
  from: State = evolver.initialState(),
): State {
  return events.reduce(evolver.evolve, from);
}

/** What `deciderOf` takes: each command's decide function, by command type (`any`: each takes a command of its own type). */
type DecideFunctions<State, Event extends DomainEvent> = Record<string, (command: any, state: State, meta: CommandMetadata) => readonly Event[]>;

/** The commands of a decider made by `deciderOf`: each decide function's command, tagged with its type and carrying its metadata. */
export type CommandsOf<Decisions extends DecideFunctions<never, DomainEvent>> = {
  [Type in keyof Decisions & string]: { readonly type: Type; readonly command: Parameters<Decisions[Type]>[0]; readonly meta: CommandMetadata };
}[keyof Decisions & string];

/**
 * An aggregate's Decider from its evolver and its `decide*` functions, one per command type: `decide` hands each
 * command to its function. The functions stay what handlers and tests call; the decider is the aggregate's one
 * declaration of what it folds and what it decides.
 */
export function deciderOf<State, Event extends DomainEvent, Decisions extends DecideFunctions<State, Event>>(
  evolver: Evolver<State, Event>,
  decisions: Decisions,
): Decider<State, CommandsOf<Decisions>, Event> {
  return {
    initialState: evolver.initialState,
    evolve: evolver.evolve,
    decide: ({ type, command, meta }, state) => decisions[type](command, state, meta),
  };
}
