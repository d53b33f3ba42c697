/**
 * Waiting work, one FIFO per key (an environment), taken round-robin across
 * keys: an environment with a hundred renders waiting delays another's next
 * render by at most one render per thread, not by the hundred. Each key may
 * have at most `boundPerKey` items waiting. Pure: no timers, no threads.
 */
export class FairQueue<T> {
  private readonly waiting = new Map<string, T[]>();
  /** Keys with work waiting, in the order they are served next. */
  private readonly turns: string[] = [];

  constructor(private readonly boundPerKey: number) {}

  /** False (and nothing queued) when `key` already has `boundPerKey` items waiting. */
  push(key: string, item: T): boolean {
    const items = this.waiting.get(key);
    if (items === undefined) {
      this.waiting.set(key, [item]);
      this.turns.push(key);
      return true;
    }
    if (items.length >= this.boundPerKey) return false;
    items.push(item);
    return true;
  }

  /** The oldest item of the key whose turn it is; that key goes to the back of the turns. */
  shift(): T | undefined {
    const key = this.turns.shift();
    if (key === undefined) return undefined;
    const items = this.waiting.get(key)!;
    const item = items.shift()!;
    if (items.length > 0) this.turns.push(key);
    else this.waiting.delete(key);
    return item;
  }

  /** Everything waiting, in the order it would have been served; the queue is empty after. */
  drain(): T[] {
    const all: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) all.push(item);
    return all;
  }

  get size(): number {
    let size = 0;
    for (const items of this.waiting.values()) size += items.length;
    return size;
  }
}
