import { Logger } from '@nestjs/common';
import { Listener } from '@billing/event-store';

export interface NotifiedRoundsOptions {
  /** Names the work in the log ("webhook", "e-mail"). */
  readonly name: string;
  /** The channel whose NOTIFY wakes a round. */
  readonly channel: string;
  /** For LISTEN (a connection of its own); null: poll only. */
  readonly databaseUrl: string | null;
  readonly pollIntervalMs: number;
  /** One round of work; it goes on while `isRunning` and its errors are logged (the next wake retries). */
  readonly round: () => Promise<void>;
}

/**
 * Rounds of queue work (the webhook and e-mail dispatchers), woken three ways: a NOTIFY on the queue's channel, a
 * poll as the fallback when LISTEN is lost or a row comes due by time, and `wake()` from this process (its own
 * commits). Wakes during a round are coalesced into one more round, so a burst of notifications never runs rounds
 * side by side.
 */
export class NotifiedRounds {
  private readonly logger: Logger;
  private running = false;
  private loop: Promise<void> | null = null;
  private again = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private listener: Listener | null = null;

  constructor(private readonly options: NotifiedRoundsOptions) {
    this.logger = new Logger(`${options.name} rounds`);
  }

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const { name, channel, databaseUrl, pollIntervalMs } = this.options;
    if (databaseUrl) {
      const listener = new Listener({
        url: databaseUrl,
        channels: [channel],
        applicationName: `billing-${channel}-listen`,
        onNotification: () => this.wake(),
        onRelistened: () => this.wake(),
        onLost: (error) => this.logger.warn({ msg: `${name} listener connection lost; polling until it is back`, error }),
      });
      try {
        await listener.start();
        this.listener = listener;
      } catch (error) {
        this.logger.warn({ msg: `could not LISTEN for ${name} deliveries; polling only`, error: String(error) });
      }
    }
    this.pollTimer = setInterval(() => this.wake(), pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
  }

  /** Stops waking, waits for the round under way, and closes the LISTEN connection; true when it was running. */
  async stop(): Promise<boolean> {
    const wasRunning = this.running;
    this.running = false;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
    await this.loop;
    await this.listener?.stop();
    this.listener = null;
    return wasRunning;
  }

  /** Runs a round now, or one more after the round under way. */
  wake(): void {
    if (!this.running) return;
    if (this.loop) {
      this.again = true;
      return;
    }
    this.loop = this.options
      .round()
      .catch((error: unknown) => this.logger.error({ msg: `${this.options.name} round failed; will retry`, error: String(error) }))
      .finally(() => {
        this.loop = null;
        if (this.again && this.running) {
          this.again = false;
          this.wake();
        }
      });
  }
}
