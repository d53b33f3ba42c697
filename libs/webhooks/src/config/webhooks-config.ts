import { AppConfig, WEBHOOK_ENCRYPTION_KEY_REQUIRED, WebhookSettings } from '@billing/platform';

/** The webhooks settings the module runs with: the encryption key is there. */
export type WebhooksConfig = WebhookSettings & { readonly encryptionKey: Buffer };

export const WEBHOOKS_CONFIG = Symbol('WEBHOOKS_CONFIG');

/** Production refuses to start without WEBHOOK_ENCRYPTION_KEY (thrown when the module starts, during bootstrap). */
export function webhooksConfigOf(config: AppConfig): WebhooksConfig {
  const { encryptionKey } = config.webhooks;
  if (encryptionKey === null) throw new Error(WEBHOOK_ENCRYPTION_KEY_REQUIRED);
  return { ...config.webhooks, encryptionKey };
}
