import { DataSource } from 'typeorm';
import { AttemptRecorder, RECORD_GATHER_MS, RecordedAttempt } from './attempt-recorder';

const ENVIRONMENT = '5d1f0000-0000-4000-8000-000000000001';

/** A data source whose pool answers every record statement with all its deliveries kept, counting the statements. */
function fakeDataSource(): { dataSource: DataSource; statements: string[][] } {
  const statements: string[][] = [];
  const query = async ({ values }: { values: unknown[][] }) => {
    const [environments, deliveries] = values as string[][];
    statements.push(deliveries);
    return { rows: deliveries.map((id, index) => ({ environment_id: environments[index], id })) };
  };
  const dataSource = { manager: { connection: { driver: { master: { query } } } } } as unknown as DataSource;
  return { dataSource, statements };
}

function attempt(deliveryId: string): RecordedAttempt {
  return {
    environmentId: ENVIRONMENT,
    deliveryId,
    leaseToken: 'lease',
    attemptedAt: new Date(0),
    ok: true,
    statusCode: 200,
    error: null,
    durationMs: 1,
    status: 'delivered',
    failures: 0,
    nextAttemptAt: null,
    deliveredAt: new Date(0),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('AttemptRecorder', () => {
  afterEach(() => jest.useRealTimers());

  it('records the sends of one claim in one statement once the last of them finishes', async () => {
    // Only the sends may end the gathering here: on a loaded machine two turns can outlast RECORD_GATHER_MS.
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { dataSource, statements } = fakeDataSource();
    const recorder = new AttemptRecorder(dataSource, () => 3);
    const first = recorder.record(attempt('d1'));
    await turn();
    const second = recorder.record(attempt('d2'));
    await turn();
    expect(statements).toEqual([]);
    const third = recorder.record(attempt('d3'));
    expect(await Promise.all([first, second, third])).toEqual([true, true, true]);
    expect(statements).toEqual([['d1', 'd2', 'd3']]);
  });

  it('records what finished after RECORD_GATHER_MS when another send is still on its way', async () => {
    jest.useFakeTimers();
    const { dataSource, statements } = fakeDataSource();
    const recorder = new AttemptRecorder(dataSource, () => 3);
    const recorded = Promise.all([recorder.record(attempt('d1')), recorder.record(attempt('d2'))]);
    await jest.advanceTimersByTimeAsync(RECORD_GATHER_MS - 1);
    expect(statements).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(await recorded).toEqual([true, true]);
    expect(statements).toEqual([['d1', 'd2']]);
  });

  it('records at once when no sends in flight are known (a single round of runOnce)', async () => {
    const { dataSource, statements } = fakeDataSource();
    const recorder = new AttemptRecorder(dataSource);
    expect(await recorder.record(attempt('d1'))).toBe(true);
    expect(statements).toEqual([['d1']]);
  });
});
