import { CommandMetadata, deciderOf, DomainEvent, Evolver, foldEvents } from './decider';

type Counted = DomainEvent<'Counted', { readonly by: number; readonly at: string }>;
type Reset = DomainEvent<'Reset', { readonly at: string }>;
type CounterEvent = Counted | Reset;

const counterEvolver: Evolver<number, CounterEvent> = {
  initialState: () => 0,
  evolve: (state, event) => (event.type === 'Counted' ? state + event.data.by : 0),
};
const count = (command: { by: number }, _state: number, meta: CommandMetadata): Counted[] => [
  { type: 'Counted', schemaVersion: 1, data: { by: command.by, at: meta.now.toISOString() } },
];
const reset = (_command: Record<string, never>, state: number, meta: CommandMetadata): Reset[] =>
  state === 0 ? [] : [{ type: 'Reset', schemaVersion: 1, data: { at: meta.now.toISOString() } }];
const meta: CommandMetadata = { now: new Date('2026-01-01T00:00:00Z'), newId: () => 'id-1' };

describe('deciderOf', () => {
  const counter = deciderOf(counterEvolver, { Count: count, Reset: reset });

  it('folds with the evolver it was given', () => {
    expect(counter.evolve).toBe(counterEvolver.evolve);
    expect(counter.initialState()).toBe(0);
  });

  it('hands each command to the decide function of its type, with its metadata', () => {
    expect(counter.decide({ type: 'Count', command: { by: 2 }, meta }, 0)).toEqual([
      { type: 'Counted', schemaVersion: 1, data: { by: 2, at: '2026-01-01T00:00:00.000Z' } },
    ]);
    const state = foldEvents(counter, counter.decide({ type: 'Count', command: { by: 2 }, meta }, 0));
    expect(counter.decide({ type: 'Reset', command: {}, meta }, state)).toEqual([
      { type: 'Reset', schemaVersion: 1, data: { at: '2026-01-01T00:00:00.000Z' } },
    ]);
    expect(counter.decide({ type: 'Reset', command: {}, meta }, 0)).toEqual([]);
  });
});
