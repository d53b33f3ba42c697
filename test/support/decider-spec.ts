import { CommandMetadata, DomainEvent, Evolver, foldEvents } from '@billing/shared-kernel';

/**
 * Given/when/then for pure deciders, shared by every decider's tests:
 *
 *   spec.given([created]).when((state) => decideRename(state, 'b')).then([renamed]);
 *   spec.given([]).when((state) => decideRename(state, 'b')).thenThrows({ code: 'not-found' });
 *
 * `given` folds past events with the aggregate's own evolver, so a test states
 * history, not a hand-built state.
 */
export function deciderSpec<State, Event extends DomainEvent>(evolver: Evolver<State, Event>) {
  return {
    given(history: readonly Event[]) {
      const state = foldEvents(evolver, history);
      return {
        when<Decided>(decide: (state: State) => Decided) {
          return {
            then(expected: Decided): void {
              expect(decide(state)).toEqual(expected);
            },
            /** The decider refuses with a typed domain error carrying these members (code, kind, …). */
            thenThrows(error: Record<string, unknown>): void {
              let thrown: unknown = null;
              try {
                decide(state);
              } catch (caught) {
                thrown = caught;
              }
              expect(thrown).toMatchObject(error);
            },
          };
        },
      };
    },
  };
}

/** Command metadata for decider tests: a fixed time and predictable ids (`id-1`, `id-2`, … or with another prefix). */
export function metadataAt(now: string, prefix = 'id'): CommandMetadata {
  let next = 0;
  return { now: new Date(now), newId: () => `${prefix}-${++next}` };
}
