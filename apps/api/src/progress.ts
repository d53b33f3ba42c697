/**
 * A progress line on stderr: redrawn in place on a terminal, otherwise a line
 * per tenth done (logs and pipes stay readable). Stdout keeps the results only.
 */
export class ProgressBar {
  private lastTenth = -1;
  private drawn = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  /** With `elapsedMs`, also the rate so far and the time left at that rate. */
  update(label: string, done: number, total: number, elapsedMs?: number): void {
    const fraction = total > 0 ? Math.min(done / total, 1) : 1;
    const perSecond = elapsedMs === undefined ? null : done / Math.max(elapsedMs / 1000, 0.001);
    const rate =
      perSecond === null ? '' : `, ${Math.round(perSecond).toLocaleString('en-US')} events/s, ETA ${Math.round((total - done) / Math.max(perSecond, 1))} s`;
    const text = `${label} ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} events${rate}`;
    if (this.stream.isTTY) {
      const width = 30;
      const filled = Math.round(fraction * width);
      this.stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}% ${text}\u001b[K`);
      this.drawn = true;
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth !== this.lastTenth) {
      this.lastTenth = tenth;
      this.stream.write(`${String(tenth * 10).padStart(3)}% ${text}\n`);
    }
  }

  /** Ends the current bar (the next update starts a new one). */
  done(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
    this.lastTenth = -1;
  }
}
