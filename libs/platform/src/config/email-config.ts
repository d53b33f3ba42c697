import { join } from 'node:path';

/**
 * Settings of the e-mail context, from environment variables (README, "E-mail"), read with the rest of the
 * process's configuration (loadConfig).
 */
export interface EmailSettings {
  /** SMTP_URL: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…` (implicit TLS); null: unset. */
  readonly smtpUrl: string | null;
  /** MAIL_FROM: the From address of every mail. */
  readonly mailFrom: string;
  /**
   * Where mails go without SMTP_URL: `file` (development: `.eml` files under mailDir), `none` (production:
   * nothing is sent, said at start), `smtp` when SMTP_URL is set.
   */
  readonly transport: 'smtp' | 'file' | 'none';
  /** `<DATA_DIR>/mail`: the development mail folder. */
  readonly mailDir: string;
  /** EMAIL_POLL_INTERVAL_MS: how often the dispatcher looks for due deliveries besides being woken. */
  readonly pollIntervalMs: number;
}

export function loadEmailSettings(env: NodeJS.ProcessEnv, isProduction: boolean, dataDir: string): EmailSettings {
  const smtpUrl = env.SMTP_URL || null;
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) throw new Error('SMTP_URL must start with smtp:// or smtps://');
  const pollIntervalMs = env.EMAIL_POLL_INTERVAL_MS ? Number(env.EMAIL_POLL_INTERVAL_MS) : 1_000;
  if (!Number.isInteger(pollIntervalMs) || pollIntervalMs < 1) throw new Error('EMAIL_POLL_INTERVAL_MS must be a positive integer');
  return {
    smtpUrl,
    mailFrom: env.MAIL_FROM || 'billing@localhost',
    transport: smtpUrl ? 'smtp' : isProduction ? 'none' : 'file',
    mailDir: join(dataDir, 'mail'),
    pollIntervalMs,
  };
}
