/**
 * Settings of the webhooks context, from environment variables (documented in
 * libs/webhooks/README.md), read with the rest of the process's configuration
 * (loadConfig) and injected into the webhooks module.
 */
import { readFileSync } from 'node:fs';

export interface WebhookSettings {
  /**
   * AES-256-GCM key that encrypts signature keys at rest (32 bytes). Null when
   * unset in production: refused when the webhooks module starts (like the
   * payments keys), so that loading the configuration stays usable by tools
   * and tests that do not start it.
   */
  readonly encryptionKey: Buffer | null;
  /** True when the fixed development key is in use (never in production). */
  readonly usesDevelopmentKey: boolean;
  /** Per-attempt deadline for connect + request + response. */
  readonly timeoutMs: number;
  /** Local development and tests: loopback, private, link-local and CGNAT receivers are allowed. */
  readonly allowPrivateNetworks: boolean;
  /** Local development: plain http to a loopback receiver is allowed. */
  readonly allowInsecureHttp: boolean;
  /** Extra trusted CA certificates (PEM), added to Node's default roots. */
  readonly extraCaPem: string | null;
  /** Whether a worker process runs the dispatcher (the projector still fans out when off). */
  readonly dispatcherEnabled: boolean;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  /** Deliveries claimed (and sent concurrently) per round. */
  readonly batchSize: number;
}

/**
 * The development key. Public by design (it is in the source): it keeps
 * `npm start` working with nothing configured and is refused in production.
 */
export const DEVELOPMENT_WEBHOOK_ENCRYPTION_KEY = 'ZGV2ZWxvcG1lbnQtb25seS13ZWJob29rLWtleS0zMmI=';

export const WEBHOOK_ENCRYPTION_KEY_REQUIRED = 'WEBHOOK_ENCRYPTION_KEY: required in production (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)';

export function loadWebhookSettings(env: NodeJS.ProcessEnv, isProduction: boolean): WebhookSettings {
  const configured = env.WEBHOOK_ENCRYPTION_KEY?.trim();
  const missing = !configured && isProduction;
  const encryptionKey = Buffer.from(configured || DEVELOPMENT_WEBHOOK_ENCRYPTION_KEY, 'base64');
  if (encryptionKey.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(configured || DEVELOPMENT_WEBHOOK_ENCRYPTION_KEY)) {
    throw new Error('WEBHOOK_ENCRYPTION_KEY: must be the base64 encoding of exactly 32 bytes');
  }
  const caFile = env.WEBHOOK_CA_FILE?.trim();
  const settings = {
    usesDevelopmentKey: !configured,
    timeoutMs: positiveInteger(env.WEBHOOK_TIMEOUT_MS, 5000, 'WEBHOOK_TIMEOUT_MS'),
    allowPrivateNetworks: flag(env.WEBHOOK_ALLOW_PRIVATE_NETWORKS, false, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
    allowInsecureHttp: flag(env.WEBHOOK_ALLOW_INSECURE_HTTP, false, 'WEBHOOK_ALLOW_INSECURE_HTTP'),
    extraCaPem: caFile ? readFileSync(caFile, 'utf8') : null,
    dispatcherEnabled: flag(env.WEBHOOK_DISPATCHER_ENABLED, true, 'WEBHOOK_DISPATCHER_ENABLED'),
    pollIntervalMs: positiveInteger(env.WEBHOOK_POLL_INTERVAL_MS, 1000, 'WEBHOOK_POLL_INTERVAL_MS'),
    leaseMs: positiveInteger(env.WEBHOOK_LEASE_MS, 30_000, 'WEBHOOK_LEASE_MS'),
    batchSize: positiveInteger(env.WEBHOOK_BATCH_SIZE, 32, 'WEBHOOK_BATCH_SIZE'),
  } as WebhookSettings;
  // Not enumerable, like the other keys: JSON.stringify and console.log of the config never show it.
  Object.defineProperty(settings, 'encryptionKey', { value: missing ? null : encryptionKey, enumerable: false });
  return Object.freeze(settings);
}

function flag(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new Error(`${name} must be true or false`);
}

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer`);
  return parsed;
}
