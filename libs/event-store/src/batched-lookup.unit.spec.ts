import { EntityManager } from 'typeorm';
import { BatchedLookup } from './batched-lookup';
import { UnitOfWork, withinUnitOfWork } from './unit-of-work';

interface Row {
  readonly id: string;
  readonly value: number;
}

/** A lookup over a fixed table that records each statement it would send. */
function lookupOver(table: readonly Row[], fail = false) {
  const statements: string[][] = [];
  const lookup = new BatchedLookup<string, Row>(
    async (keys) => {
      statements.push([...keys]);
      if (fail) throw new Error('connection lost');
      return table.filter((row) => keys.includes(row.id));
    },
    { key: (key) => key, row: (row) => row.id },
  );
  return { lookup, statements };
}

const TABLE: readonly Row[] = [
  { id: 'a', value: 1 },
  { id: 'b', value: 2 },
];

describe('BatchedLookup', () => {
  it('given lookups asked in one turn, when they run, then one statement serves them all, each key once', async () => {
    const { lookup, statements } = lookupOver(TABLE);
    const rows = await Promise.all([lookup.load('a'), lookup.load('b'), lookup.load('a'), lookup.load('missing')]);
    expect(rows).toEqual([TABLE[0], TABLE[1], TABLE[0], null]);
    expect(statements).toEqual([['a', 'b', 'missing']]);
  });

  it('given lookups in different turns, when they run, then each turn has its own statement', async () => {
    const { lookup, statements } = lookupOver(TABLE);
    expect(await lookup.load('a')).toEqual(TABLE[0]);
    expect(await lookup.load('b')).toEqual(TABLE[1]);
    expect(statements).toEqual([['a'], ['b']]);
  });

  it('given the statement fails, when lookups share it, then every one of them fails, and the next turn starts afresh', async () => {
    const failing = lookupOver(TABLE, true);
    const results = await Promise.allSettled([failing.lookup.load('a'), failing.lookup.load('b')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    const { lookup } = lookupOver(TABLE);
    await expect(lookup.load('b')).resolves.toEqual(TABLE[1]);
  });

  it('given an open unit of work, when a lookup runs in it, then it runs alone (on the unit connection, seeing its writes)', async () => {
    const { lookup, statements } = lookupOver(TABLE);
    const unit = new UnitOfWork({} as EntityManager);
    const rows = await withinUnitOfWork(unit, () => Promise.all([lookup.load('a'), lookup.load('b')]));
    expect(rows).toEqual([TABLE[0], TABLE[1]]);
    expect(statements).toEqual([['a'], ['b']]);
  });

  it('given the most statements already in flight, when lookups arrive over several turns, then they wait and share the next statement', async () => {
    const statements: string[][] = [];
    const answers: (() => void)[] = [];
    const lookup = new BatchedLookup<string, Row>(
      (keys) => {
        statements.push([...keys]);
        return new Promise((resolve) => answers.push(() => resolve(TABLE.filter((row) => keys.includes(row.id)))));
      },
      { key: (key) => key, row: (row) => row.id },
      1,
    );
    const first = lookup.load('a');
    await nextTurn();
    const waiting = [lookup.load('b')];
    await nextTurn();
    waiting.push(lookup.load('missing'));
    await nextTurn();
    expect(statements).toEqual([['a']]);

    answers[0]();
    expect(await first).toEqual(TABLE[0]);
    await nextTurn();
    expect(statements).toEqual([['a'], ['b', 'missing']]);
    answers[1]();
    expect(await Promise.all(waiting)).toEqual([TABLE[1], null]);
  });

  it('given a statement fails while lookups wait, when it settles, then the waiting ones still get their own statement', async () => {
    const statements: string[][] = [];
    let failNext = true;
    const lookup = new BatchedLookup<string, Row>(
      async (keys) => {
        statements.push([...keys]);
        await nextTurn();
        if (failNext) {
          failNext = false;
          throw new Error('connection lost');
        }
        return TABLE.filter((row) => keys.includes(row.id));
      },
      { key: (key) => key, row: (row) => row.id },
      1,
    );
    const failed = lookup.load('a');
    await nextTurn();
    const waiting = lookup.load('b');
    await expect(failed).rejects.toThrow('connection lost');
    expect(await waiting).toEqual(TABLE[1]);
    expect(statements).toEqual([['a'], ['b']]);
  });
});

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
