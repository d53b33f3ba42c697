import { FairQueue } from './fair-queue';

describe('FairQueue', () => {
  it("issue 20 #17: one environment's renders do not delay another's (round-robin across environments, each in order)", () => {
    const queue = new FairQueue<string>(100);
    for (let i = 1; i <= 5; i++) queue.push('busy', `busy-${i}`);
    queue.push('quiet', 'quiet-1');
    expect(queue.shift()).toBe('busy-1');
    queue.push('other', 'other-1');
    queue.push('quiet', 'quiet-2');
    expect([queue.shift(), queue.shift(), queue.shift(), queue.shift(), queue.shift()]).toEqual(['quiet-1', 'busy-2', 'other-1', 'quiet-2', 'busy-3']);
    expect(queue.drain()).toEqual(['busy-4', 'busy-5']);
    expect(queue.shift()).toBeUndefined();
    expect(queue.size).toBe(0);
  });

  it('issue 20 #17: bounds what each environment may have waiting, not what others may', () => {
    const queue = new FairQueue<number>(2);
    expect([queue.push('a', 1), queue.push('a', 2), queue.push('a', 3)]).toEqual([true, true, false]);
    expect(queue.push('b', 10)).toBe(true);
    expect(queue.size).toBe(3);
    expect(queue.shift()).toBe(1);
    expect(queue.push('a', 4)).toBe(true);
    expect(queue.drain()).toEqual([10, 2, 4]);
  });
});
