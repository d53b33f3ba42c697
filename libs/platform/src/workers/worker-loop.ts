/**
 * A worker process's periodic job: `tick` every `intervalMs`, never two runs
 * at once (a slow run skips the ticks it overlaps), not keeping the process
 * alive, and awaited on shutdown. A failing run is the job's own to log; the
 * loop goes on.
 */
export class WorkerLoop {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly tick: () => Promise<unknown>,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.tick()
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => (this.running = null));
    }, this.intervalMs).unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
