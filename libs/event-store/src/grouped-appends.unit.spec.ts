import { RequestAnsweredBeforeError, StreamVersionConflictError } from './errors';
import { GroupedAppends, MIN_GROUP } from './grouped-appends';
import { AppendResult, EventMetadata, RequestAnswer, StreamAppend, WrittenStream } from './types';
import { StagedAppend, UnitOfWork, withinUnitOfWork, currentUnitOfWork } from './unit-of-work';
import { EntityManager } from 'typeorm';

const METADATA: EventMetadata = { actor: 'test', requestId: null, correlationId: 'c', causationId: null };

function appendTo(streamId: string, expectedVersion: StreamAppend['expectedVersion'] = 'no_stream'): StreamAppend {
  return {
    stream: { environmentId: 'e', streamType: 'invoice', streamId },
    expectedVersion,
    events: [{ eventId: `${streamId}-event`, type: 'InvoiceCreated', schemaVersion: 1, data: {}, occurredAt: new Date(0) }],
  };
}

const position = (globalPosition: string): WrittenStream => ({ streamType: 'invoice', position: { transactionId: '9', globalPosition } });

function answerOf(key: string): RequestAnswer {
  return {
    environmentId: 'e',
    subject: 's',
    key,
    fingerprint: 'f',
    method: 'POST',
    path: '/invoices',
    status: 201,
    headers: {},
    body: '{}',
    createdAt: new Date(0),
    expiresAt: new Date(1),
  };
}

/**
 * A fake log: `taken` streams conflict; `answered` keys were answered by another request; `failing` groups fail with
 * a connection error; every statement is recorded (its streams, then `key <key>` for each answer it stores).
 */
function groupedOver({ taken = [] as string[], answered = [] as string[], failing = false, unnamed = false } = {}) {
  const statements: string[][] = [];
  const units: boolean[] = [];
  const grouped = new GroupedAppends(
    async (append): Promise<AppendResult> => {
      statements.push([append.stream.streamId]);
      units.push(currentUnitOfWork() !== undefined);
      if (taken.includes(append.stream.streamId)) throw new StreamVersionConflictError(append.stream, append.expectedVersion);
      return { nextVersions: [1], written: [position('1')] };
    },
    async (staged: readonly StagedAppend[], answer: RequestAnswer) => {
      statements.push([...staged.map(({ append }) => append.stream.streamId), `key ${answer.key}`]);
      const moved = staged.find(({ append }) => taken.includes(append.stream.streamId));
      if (moved) throw new StreamVersionConflictError(moved.append.stream, moved.append.expectedVersion);
      if (answered.includes(answer.key)) throw new RequestAnsweredBeforeError();
      return staged.length === 0 ? [] : [position('3')];
    },
    async (staged: readonly StagedAppend[], answers: readonly RequestAnswer[]) => {
      statements.push([...staged.map(({ append }) => append.stream.streamId), ...answers.map(({ key }) => `key ${key}`)]);
      units.push(currentUnitOfWork() !== undefined);
      if (failing) throw new Error('connection lost');
      if (answers.some(({ key }) => answered.includes(key))) throw new Error('another request with the same idempotency key stored its answer first');
      const moved = staged.find(({ append }) => taken.includes(append.stream.streamId));
      if (moved && unnamed) throw new Error('a stream of the group was moved by another writer');
      if (moved) throw new StreamVersionConflictError(moved.append.stream, moved.append.expectedVersion);
      return [position('7')];
    },
  );
  return { grouped, statements, units };
}

const staged = (...streamIds: string[]): StagedAppend[] => streamIds.map((id) => ({ append: appendTo(id), metadata: METADATA }));

describe('GroupedAppends', () => {
  it(`given ${MIN_GROUP} or more appends in one turn, when they are written, then one statement writes them all and each gets its version`, async () => {
    const { grouped, statements } = groupedOver();
    const results = await Promise.all(['a', 'b', 'c'].map((id) => grouped.append(appendTo(id), METADATA)));
    expect(statements).toEqual([['a', 'b', 'c']]);
    expect(results.map((result) => result.nextVersions)).toEqual([[1], [1], [1]]);
    expect(results[0].written).toEqual([position('7')]);
  });

  it('given one append in a turn, when it is written, then it is one statement of its own', async () => {
    const { grouped, statements } = groupedOver();
    expect(MIN_GROUP).toBe(2);
    await grouped.append(appendTo('a'), METADATA);
    expect(statements).toEqual([['a']]);
  });

  it('given a group whose statement fails because a stream moved (without naming it), when it is written, then each is written alone and only the moved one fails', async () => {
    const { grouped, statements } = groupedOver({ taken: ['b'], unnamed: true });
    const results = await Promise.allSettled(['a', 'b', 'c'].map((id) => grouped.append(appendTo(id), METADATA)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(statements).toEqual([['a', 'b', 'c'], ['a'], ['b'], ['c']]);
  });

  it('given a stream another writer moved, when its group is written, then only its append fails and the others are written without it', async () => {
    const { grouped, statements } = groupedOver({ taken: ['b'] });
    const results = await Promise.allSettled(['a', 'b', 'c', 'd'].map((id) => grouped.append(appendTo(id), METADATA)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StreamVersionConflictError);
    expect(statements).toEqual([
      ['a', 'b', 'c', 'd'],
      ['a', 'c', 'd'],
    ]);
  });

  it('given a group that fails otherwise, when it is written, then each append is written alone and answers for itself', async () => {
    const { grouped, statements } = groupedOver({ failing: true });
    const results = await Promise.all(['a', 'b', 'c'].map((id) => grouped.append(appendTo(id), METADATA)));
    expect(results).toHaveLength(3);
    expect(statements).toEqual([['a', 'b', 'c'], ['a'], ['b'], ['c']]);
  });

  it('given two appends to one stream in one turn, when they are written, then the second waits for the next turn (its version checked after the first)', async () => {
    const { grouped, statements } = groupedOver();
    await Promise.all([
      grouped.append(appendTo('a'), METADATA),
      grouped.append(appendTo('b'), METADATA),
      grouped.append(appendTo('a', 1), METADATA),
      grouped.append(appendTo('c'), METADATA),
    ]);
    expect(statements).toEqual([['a', 'b', 'c'], ['a']]);
  });

  it('given the first appender runs in a unit of work, when the group is written, then it is written outside it', async () => {
    const { grouped, units } = groupedOver();
    const unit = new UnitOfWork({} as EntityManager);
    await Promise.all([
      withinUnitOfWork(unit, () => grouped.append(appendTo('a'), METADATA)),
      grouped.append(appendTo('b'), METADATA),
      grouped.append(appendTo('c'), METADATA),
    ]);
    expect(units).toEqual([false]);
  });

  it("given keyed requests' appends and answers in one turn, when they are written, then one statement writes every append and every answer", async () => {
    const { grouped, statements } = groupedOver();
    const [first, second] = await Promise.all([
      grouped.appendAnswered(staged('a', 'b'), answerOf('k1')),
      grouped.appendAnswered(staged('c'), answerOf('k2')),
      grouped.append(appendTo('d'), METADATA),
    ]);
    expect(statements).toEqual([['a', 'b', 'c', 'd', 'key k1', 'key k2']]);
    expect(first).toEqual([position('7')]);
    expect(second).toEqual([position('7')]);
  });

  it('given a key another request answered first, when its group is written, then only that request fails (RequestAnsweredBeforeError) and the others are written alone', async () => {
    const { grouped, statements } = groupedOver({ answered: ['k2'] });
    const results = await Promise.allSettled([
      grouped.appendAnswered(staged('a'), answerOf('k1')),
      grouped.appendAnswered(staged('b'), answerOf('k2')),
      grouped.append(appendTo('c'), METADATA),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(RequestAnsweredBeforeError);
    expect(statements).toEqual([['a', 'b', 'c', 'key k1', 'key k2'], ['a', 'key k1'], ['b', 'key k2'], ['c']]);
  });

  it('given two requests with one key in one turn, when they are written, then the second waits for the next turn (where the first answer is found)', async () => {
    const { grouped, statements } = groupedOver();
    await Promise.all([
      grouped.appendAnswered(staged('a'), answerOf('k')),
      grouped.appendAnswered(staged('b'), answerOf('k')),
      grouped.append(appendTo('c'), METADATA),
    ]);
    expect(statements).toEqual([
      ['a', 'c', 'key k'],
      ['b', 'key k'],
    ]);
  });

  it('given a keyed request that appended nothing, when its answer is written, then it is stored alone at once', async () => {
    const { grouped, statements } = groupedOver();
    expect(await grouped.appendAnswered([], answerOf('k'))).toEqual([]);
    expect(statements).toEqual([['key k']]);
  });

  it('given a keyed request alone in its turn, when it is written, then it goes as a group of one (one statement), not in a transaction of its own', async () => {
    const ways: string[] = [];
    const grouped = new GroupedAppends(
      async () => {
        ways.push('one');
        return { nextVersions: [1], written: [position('1')] };
      },
      async () => {
        ways.push('alone');
        return [position('3')];
      },
      async () => {
        ways.push('many');
        return [position('7')];
      },
    );
    expect(await grouped.appendAnswered(staged('a'), answerOf('k'))).toEqual([position('7')]);
    expect(await grouped.append(appendTo('b'), METADATA)).toEqual({ nextVersions: [1], written: [position('1')] });
    expect(ways).toEqual(['many', 'one']);
  });

  it('given a keyed request alone whose key another request answered first, when it is written, then it fails with RequestAnsweredBeforeError', async () => {
    const { grouped, statements } = groupedOver({ answered: ['k'] });
    await expect(grouped.appendAnswered(staged('a'), answerOf('k'))).rejects.toBeInstanceOf(RequestAnsweredBeforeError);
    expect(statements).toEqual([
      ['a', 'key k'],
      ['a', 'key k'],
    ]);
  });
});
