import { Client, Notification } from 'pg';

/** Between attempts to LISTEN again after the connection was lost. */
const RELISTEN_MS = 1000;

export interface ListenerOptions {
  readonly url: string;
  readonly channels: readonly string[];
  readonly applicationName: string;
  readonly onNotification: (message: Notification) => void;
  /** LISTEN holds again after a loss: the notifications sent meanwhile are gone, so look for what they announced. */
  readonly onRelistened: () => void;
  /** The connection was lost (once per loss; it is made again every RELISTEN_MS until it holds). */
  readonly onLost: (error: string) => void;
}

/**
 * A LISTEN connection that comes back: a Postgres restart, a failover or an administrator's
 * `pg_terminate_backend` ends it, and without it a worker would fall back to its poll for good (one
 * batch a second instead of one per append). Every LISTEN of the service goes through it.
 */
export class Listener {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: ListenerOptions) {}

  /** Connects and listens; throws when that fails (the caller decides whether to go on by polling). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.options.url, application_name: this.options.applicationName.slice(0, 63) });
    client.on('notification', (message) => this.options.onNotification(message));
    let lost = false;
    const onLost = (error: unknown) => {
      if (lost || this.stopped || this.client !== client) return;
      lost = true;
      this.client = null;
      this.options.onLost(String(error));
      void client.end().catch(() => undefined);
      this.relistenLater();
    };
    client.on('error', onLost);
    client.on('end', () => onLost('connection ended'));
    try {
      await client.connect();
      await client.query(this.options.channels.map((channel) => `listen ${channel}`).join('; '));
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  private relistenLater(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().then(
        () => {
          if (!this.stopped) this.options.onRelistened();
        },
        () => this.relistenLater(),
      );
    }, RELISTEN_MS);
    this.retry.unref();
  }
}
