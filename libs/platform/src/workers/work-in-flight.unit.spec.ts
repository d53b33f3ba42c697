import { WorkInFlight } from './work-in-flight';

/** Work the test ends by hand. */
function gate<T>(value: T) {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<T>((resolve, reject) => {
    open = () => resolve(value);
    fail = reject;
  });
  return { work: () => done, open, fail };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkInFlight', () => {
  it('given a worker’s pass in flight for a key, when someone waits for it, then the wait ends only once the pass ended', async () => {
    const inFlight = new WorkInFlight();
    const pass = gate('charged');
    const result = inFlight.run('env-1', pass.work);
    let waited = false;
    const waiting = inFlight.ended('env-1').then(() => (waited = true));
    await turn();
    expect(waited).toBe(false);
    pass.open();
    await waiting;
    expect(await result).toBe('charged');
    expect(inFlight.busyKeys).toBe(0); // the map does not grow with every environment ever worked on
  });

  it('given nothing in flight for a key (or only for another key), then waiting ends at once', async () => {
    const inFlight = new WorkInFlight();
    const other = gate('other');
    inFlight.run('env-2', other.work);
    let waited = false;
    void inFlight.ended('env-1').then(() => (waited = true));
    await turn();
    expect(waited).toBe(true);
    other.open();
  });

  it('given a pass that fails, then its caller sees the failure and the wait for it still ends', async () => {
    const inFlight = new WorkInFlight();
    const pass = gate('never');
    const result = inFlight.run('env-1', pass.work);
    const waiting = inFlight.ended('env-1');
    pass.fail(new Error('gateway down'));
    await expect(result).rejects.toThrow('gateway down');
    await expect(waiting).resolves.toBeUndefined();
    await turn();
    expect(inFlight.busyKeys).toBe(0);
  });
});
