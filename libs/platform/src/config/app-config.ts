/**
 * All configuration comes from environment variables (documented in the
 * README). Development defaults make `npm start` work with nothing set;
 * production refuses to start without real JWT settings.
 */
import { createPrivateKey, generateKeyPairSync, KeyObject, randomBytes } from 'node:crypto';
import { EmailSettings, loadEmailSettings } from './email-config';
import { FaultPoint, faultKillAt } from './fault-injection';
import { loadWebhookSettings, WebhookSettings } from './webhooks-config';
export interface JwtConfig {
  /** HS256 shared secret (development). */
  readonly secret: string | null;
  /** PEM public key for RS256/ES256 (production). */
  readonly publicKey: string | null;
  /** JWKS endpoint for RS256/ES256 (production). */
  readonly jwksUrl: string | null;
  readonly algorithms: readonly string[];
  readonly issuer: string | null;
  readonly audience: string | null;
  /** Longest lifetime (exp − iat) a token may claim; tokens without `exp` are refused. */
  readonly maxTtlSeconds: number;
}

export interface AppConfig {
  readonly nodeEnv: string;
  readonly isProduction: boolean;
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string | null;
  readonly databasePoolSize: number;
  /** Folder of the embedded Postgres used when DATABASE_URL is unset. */
  readonly dataDir: string;
  readonly roles: { readonly api: boolean; readonly worker: boolean };
  readonly bodyLimitBytes: number;
  /** At most this much JSON per page of GET /events and history, and per batch of the export (besides a page's first event). */
  readonly logPageMaxBytes: number;
  /** How long a write waits for its read models before answering 503 read-model-timeout. */
  readonly readModelTimeoutMs: number;
  /** A request (headers and body) must arrive within this time, its headers within headersTimeoutMs. */
  readonly requestTimeoutMs: number;
  readonly headersTimeoutMs: number;
  /** How long a payment may stay pending (its gateway call's outcome unknown) before a worker asks the gateway (ms). */
  readonly paymentsResolveAfterMs: number;
  /** How long an Idempotency-Key and its stored response are kept (hours, at least 1). */
  readonly idempotencyRetentionHours: number;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
  readonly jwt: JwtConfig;
  /**
   * Per-environment test clocks (`GET /test-clock`, `POST /test-clock/advance`) and every request
   * reading its environment's clock. TEST_CLOCKS=true|false; on unless NODE_ENV=production.
   */
  readonly testClocks: boolean;
  /** Keys that encrypt payment provider credentials at rest (PAYMENTS_ENCRYPTION_KEY). */
  readonly paymentsEncryptionKeys: PaymentsEncryptionKeys;
  /** The Ed25519 key that signs audit heads (AUDIT_SIGNING_KEY). */
  readonly auditSigningKey: AuditSigningKey;
  readonly templateRendering: TemplateRenderingConfig;
  /** The webhooks context's settings (WEBHOOK_*). */
  readonly webhooks: WebhookSettings;
  /** The e-mail context's settings (SMTP_URL, MAIL_FROM, the development mail folder). */
  readonly email: EmailSettings;
  /** Hosted invoice pages (`/i/<token>`): where they are served and the key their links are sealed with. */
  readonly hostedPages: HostedPagesConfig;
  /** The Stripe payment provider's client (STRIPE_API_BASE, STRIPE_TIMEOUT_MS). */
  readonly stripe: StripeClientConfig;
  /** FAULT_KILL_AT: crash tests only (see fault-injection.ts); null unless set. */
  readonly faultKillAt: FaultPoint | null;
}

/** Where Stripe's API is served: the official client's host, port and protocol options. */
export interface StripeApiBase {
  readonly host: string;
  readonly port: number;
  readonly protocol: 'http' | 'https';
}

export interface StripeClientConfig {
  /** STRIPE_API_BASE (e.g. `http://127.0.0.1:12111`): the override tests use for a local server; null: api.stripe.com. */
  readonly apiBase: StripeApiBase | null;
  /**
   * STRIPE_TIMEOUT_MS (default 20000): one call's time limit, the client's own retries included in none of it.
   * Must stay below PAYMENTS_RESOLVE_AFTER_MS, so no call is still under way when its payment is looked up.
   */
  readonly timeoutMs: number;
}

/** The path Stripe (and later gateways) post their events to: `/gateway-webhooks/<provider>/<environment id>`, read without a login, its body kept raw. */
export const GATEWAY_WEBHOOKS_PATH = '/gateway-webhooks';

/** The path of hosted invoice pages: `<PUBLIC_BASE_URL>/i/<token>` (the edge reads their pay form without a login). */
export const HOSTED_PAGE_PATH = '/i';

export interface HostedPagesConfig {
  /** PUBLIC_BASE_URL without a trailing slash: what a customer's browser reaches the service at (default http://localhost:<PORT>). */
  readonly publicBaseUrl: string;
  /**
   * HOSTED_LINK_SECRET: the server key links are derived from (at least 32 characters); a development default
   * outside production. Unset in production: null, and the service refuses to start (HostedLinks).
   */
  readonly linkSecret: string | null;
  /** HOSTED_PAGE_RATE_LIMIT: requests per minute one client address may make to hosted pages (default 60). */
  readonly rateLimitPerMinute: number;
}

/** How invoice documents render (libs/templates, the render pool): threads and the bounds of one render. */
export interface TemplateRenderingConfig {
  /** Worker threads per process (TEMPLATE_RENDER_THREADS, 1–4). */
  readonly threads: number;
  /** One document's render in all, template and PDF layout (TEMPLATE_RENDER_TIMEOUT_MS): past it the thread is terminated and replaced. */
  readonly timeoutMs: number;
  /** A render thread's JavaScript heap (TEMPLATE_RENDER_MEMORY_MB): a render that needs more ends its thread. */
  readonly memoryMb: number;
  /** Renders an environment may have waiting (TEMPLATE_RENDER_QUEUE); one more is 503 render-queue-full. */
  readonly queuePerEnvironment: number;
}

/** `privateKey` is not enumerable: JSON.stringify and console.log of the config never show it. */
export interface AuditSigningKey {
  readonly privateKey: KeyObject | null;
  /**
   * - `environment`: AUDIT_SIGNING_KEY (a PKCS#8 PEM Ed25519 private key, `\n` escapes allowed).
   * - `development-file`: unset outside production, `npm start` put the key kept in `<DATA_DIR>/audit-signing-key.pem` here.
   * - `development-process`: unset outside production: a key of this process (tests; lost when it exits).
   * - `missing`: unset in production: startup refuses.
   */
  readonly source: 'environment' | 'development-file' | 'development-process' | 'missing';
}

export const AUDIT_SIGNING_KEY_REQUIRED =
  'AUDIT_SIGNING_KEY: required in production (a PKCS#8 PEM Ed25519 private key, e.g. from `openssl genpkey -algorithm ed25519`)';

/** One AES-256-GCM key. `key` is not enumerable: JSON.stringify and console.log of the config show only the id. */
export interface PaymentsEncryptionKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface PaymentsEncryptionKeys {
  /** The first encrypts; every one decrypts (rotation: a new key first, the old ones kept until re-encrypted). */
  readonly keys: readonly PaymentsEncryptionKey[];
  /**
   * - `environment`: PAYMENTS_ENCRYPTION_KEY.
   * - `development-file`: unset outside production, `npm start` put the key kept in `<DATA_DIR>/payments-encryption.key` here.
   * - `development-process`: unset outside production: a random key of this process (tests; lost when it exits).
   * - `missing`: unset in production: no keys; startup refuses (and so does the credential vault).
   */
  readonly source: 'environment' | 'development-file' | 'development-process' | 'missing';
}

export const PAYMENTS_ENCRYPTION_KEY_REQUIRED =
  'PAYMENTS_ENCRYPTION_KEY: required in production (one or more `keyId:base64-of-32-bytes` entries separated by commas, the first encrypts; e.g. `k1:$(openssl rand -base64 32)`)';

export const DEVELOPMENT_JWT_SECRET = 'development-only-secret-change-me';
/** Outside production only: hosted invoice links of a development service are not secret. */
export const HOSTED_LINK_SECRET_REQUIRED = 'HOSTED_LINK_SECRET: required in production (at least 32 characters, e.g. `openssl rand -base64 32`)';
export const DEVELOPMENT_HOSTED_LINK_SECRET = 'development-only-hosted-link-secret-change-me';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV ?? 'development';
  const isProduction = nodeEnv === 'production';
  const roles = (env.ROLES ?? 'api,worker').split(',').map((r) => r.trim());
  for (const role of roles) if (role !== 'api' && role !== 'worker') throw new Error(`ROLES: unknown role "${role}" (use api, worker)`);
  const publicKey = env.JWT_PUBLIC_KEY?.replace(/\\n/g, '\n') || null;
  const jwksUrl = env.JWT_JWKS_URL || null;
  const secret = env.JWT_SECRET || (isProduction || publicKey || jwksUrl ? null : DEVELOPMENT_JWT_SECRET);
  if (!secret && !publicKey && !jwksUrl) throw new Error('JWT: set JWT_SECRET (HS256), JWT_PUBLIC_KEY or JWT_JWKS_URL (RS256/ES256)');
  const algorithms = env.JWT_ALGORITHMS
    ? env.JWT_ALGORITHMS.split(',').map((a) => a.trim())
    : secret && !publicKey && !jwksUrl
      ? ['HS256']
      : ['RS256', 'ES256'];
  for (const algorithm of algorithms) {
    if (!['HS256', 'RS256', 'ES256'].includes(algorithm)) throw new Error(`JWT_ALGORITHMS: ${algorithm} is not allowed`);
  }
  return {
    nodeEnv,
    isProduction,
    host: env.HOST ?? '0.0.0.0',
    port: integer(env.PORT, 3000, 'PORT'),
    databaseUrl: env.DATABASE_URL || null,
    databasePoolSize: integer(env.DATABASE_POOL_SIZE, 20, 'DATABASE_POOL_SIZE'),
    dataDir: env.DATA_DIR ?? '.data',
    roles: { api: roles.includes('api'), worker: roles.includes('worker') },
    bodyLimitBytes: integer(env.BODY_LIMIT_BYTES, 1024 * 1024, 'BODY_LIMIT_BYTES'),
    logPageMaxBytes: atLeastOne(integer(env.LOG_PAGE_MAX_BYTES, 4 * 1024 * 1024, 'LOG_PAGE_MAX_BYTES'), 'LOG_PAGE_MAX_BYTES'),
    readModelTimeoutMs: integer(env.READ_MODEL_TIMEOUT_MS, 5_000, 'READ_MODEL_TIMEOUT_MS'),
    paymentsResolveAfterMs: integer(env.PAYMENTS_RESOLVE_AFTER_MS, 30_000, 'PAYMENTS_RESOLVE_AFTER_MS'),
    requestTimeoutMs: integer(env.REQUEST_TIMEOUT_MS, 30_000, 'REQUEST_TIMEOUT_MS'),
    headersTimeoutMs: integer(env.HEADERS_TIMEOUT_MS, 10_000, 'HEADERS_TIMEOUT_MS'),
    idempotencyRetentionHours: atLeastOne(integer(env.IDEMPOTENCY_RETENTION_HOURS, 24, 'IDEMPOTENCY_RETENTION_HOURS'), 'IDEMPOTENCY_RETENTION_HOURS'),
    testClocks: boolean(env.TEST_CLOCKS, !isProduction, 'TEST_CLOCKS'),
    paymentsEncryptionKeys: paymentsEncryptionKeys(env.PAYMENTS_ENCRYPTION_KEY, isProduction),
    auditSigningKey: auditSigningKey(env.AUDIT_SIGNING_KEY, isProduction),
    templateRendering: {
      threads: within(integer(env.TEMPLATE_RENDER_THREADS, 1, 'TEMPLATE_RENDER_THREADS'), 1, 4, 'TEMPLATE_RENDER_THREADS'),
      timeoutMs: atLeastOne(integer(env.TEMPLATE_RENDER_TIMEOUT_MS, 2_000, 'TEMPLATE_RENDER_TIMEOUT_MS'), 'TEMPLATE_RENDER_TIMEOUT_MS'),
      memoryMb: within(integer(env.TEMPLATE_RENDER_MEMORY_MB, 256, 'TEMPLATE_RENDER_MEMORY_MB'), 64, 4_096, 'TEMPLATE_RENDER_MEMORY_MB'),
      queuePerEnvironment: atLeastOne(integer(env.TEMPLATE_RENDER_QUEUE, 20, 'TEMPLATE_RENDER_QUEUE'), 'TEMPLATE_RENDER_QUEUE'),
    },
    webhooks: loadWebhookSettings(env, isProduction),
    hostedPages: hostedPagesConfig(env, isProduction, integer(env.PORT, 3000, 'PORT')),
    email: loadEmailSettings(env, isProduction, env.DATA_DIR ?? '.data'),
    stripe: {
      apiBase: stripeApiBase(env.STRIPE_API_BASE),
      timeoutMs: atLeastOne(integer(env.STRIPE_TIMEOUT_MS, 20_000, 'STRIPE_TIMEOUT_MS'), 'STRIPE_TIMEOUT_MS'),
    },
    faultKillAt: faultKillAt(env.FAULT_KILL_AT, isProduction),
    logLevel: (['debug', 'info', 'warn', 'error'] as const).find((l) => l === env.LOG_LEVEL) ?? 'info',
    jwt: {
      secret,
      publicKey,
      jwksUrl,
      algorithms,
      issuer: env.JWT_ISSUER || null,
      audience: env.JWT_AUDIENCE || null,
      maxTtlSeconds: integer(env.JWT_MAX_TTL_SECONDS, 24 * 3600, 'JWT_MAX_TTL_SECONDS'),
    },
  };
}

function hostedPagesConfig(env: NodeJS.ProcessEnv, isProduction: boolean, port: number): HostedPagesConfig {
  const base = env.PUBLIC_BASE_URL || `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`PUBLIC_BASE_URL: not a URL (${base})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('PUBLIC_BASE_URL: must be an http or https URL');
  if (url.search !== '' || url.hash !== '') throw new Error('PUBLIC_BASE_URL: must have no query or fragment');
  const linkSecret = env.HOSTED_LINK_SECRET || (isProduction ? null : DEVELOPMENT_HOSTED_LINK_SECRET);
  if (linkSecret !== null && linkSecret.length < 32) throw new Error('HOSTED_LINK_SECRET: must be at least 32 characters');
  const rateLimitPerMinute = atLeastOne(integer(env.HOSTED_PAGE_RATE_LIMIT, 60, 'HOSTED_PAGE_RATE_LIMIT'), 'HOSTED_PAGE_RATE_LIMIT');
  return { publicBaseUrl: base.replace(/\/+$/, ''), linkSecret, rateLimitPerMinute };
}

function stripeApiBase(value: string | undefined): StripeApiBase | null {
  if (value === undefined || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`STRIPE_API_BASE: not a URL (${value})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('STRIPE_API_BASE: must be an http or https URL');
  // The client appends /v1/… itself: a path here would be silently dropped.
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') throw new Error('STRIPE_API_BASE: must be scheme, host and port only');
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return { host: url.hostname, port: url.port === '' ? (protocol === 'https' ? 443 : 80) : Number(url.port), protocol };
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer`);
  return parsed;
}

function boolean(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`${name} must be true or false`);
}

function within(value: number, min: number, max: number, name: string): number {
  if (value < min || value > max) throw new Error(`${name} must be from ${min} to ${max}`);
  return value;
}

function atLeastOne(value: number, name: string): number {
  if (value < 1) throw new Error(`${name} must be at least 1`);
  return value;
}

/**
 * Unset in production: no keys (`missing`), refused at startup rather than
 * here, so that loading the configuration stays free of that decision's
 * side effects. Unset elsewhere: this process's random key, which startup
 * (`npm start`) replaces by the one kept under DATA_DIR.
 */
function paymentsEncryptionKeys(value: string | undefined, isProduction: boolean): PaymentsEncryptionKeys {
  if (value !== undefined && value.trim() !== '') return { keys: parsePaymentsEncryptionKeys(value, 'PAYMENTS_ENCRYPTION_KEY'), source: 'environment' };
  if (isProduction) return { keys: [], source: 'missing' };
  processKey ??= paymentsEncryptionKey(`process-${randomBytes(4).toString('hex')}`, randomBytes(32));
  return { keys: [processKey], source: 'development-process' };
}

let processKey: PaymentsEncryptionKey | undefined;

const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * `keyId:base64` entries separated by commas (base64 or base64url of exactly
 * 32 bytes; ids of letters, digits, `_` and `-`, each once). Messages name the
 * entry and its id, never the key. `name` is where the value came from.
 */
export function parsePaymentsEncryptionKeys(value: string, name: string): PaymentsEncryptionKey[] {
  const entries = value.split(',').map((entry) => entry.trim());
  const keys: PaymentsEncryptionKey[] = [];
  entries.forEach((entry, index) => {
    const where = `${name}: entry ${index + 1} of ${entries.length}`;
    const colon = entry.indexOf(':');
    if (entry === '') throw new Error(`${where} is empty (use keyId:base64-of-32-bytes, entries separated by commas)`);
    if (colon < 0) throw new Error(`${where} has no key id (use keyId:base64-of-32-bytes)`);
    const id = entry.slice(0, colon).trim();
    const encoded = entry.slice(colon + 1).trim();
    if (!KEY_ID.test(id)) throw new Error(`${where}: the key id must be 1 to 64 letters, digits, "_" or "-"`);
    if (keys.some((key) => key.id === id)) throw new Error(`${where}: the key id "${id}" is used twice`);
    const key = BASE64.test(encoded) || BASE64URL.test(encoded) ? Buffer.from(encoded, BASE64.test(encoded) ? 'base64' : 'base64url') : null;
    if (!key || key.length !== 32) throw new Error(`${where} (key "${id}"): the key must be the base64 of exactly 32 bytes (openssl rand -base64 32)`);
    keys.push(paymentsEncryptionKey(id, key));
  });
  return keys;
}

function paymentsEncryptionKey(id: string, key: Buffer): PaymentsEncryptionKey {
  const entry = { id } as PaymentsEncryptionKey;
  Object.defineProperty(entry, 'key', { value: key, enumerable: false });
  return Object.freeze(entry);
}

/** AUDIT_SIGNING_KEY when set; unset: missing in production, this process's key elsewhere (which `npm start` replaces by the one under DATA_DIR). */
function auditSigningKey(value: string | undefined, isProduction: boolean): AuditSigningKey {
  if (value !== undefined && value.trim() !== '') return auditKey(parseAuditSigningKey(value, 'AUDIT_SIGNING_KEY'), 'environment');
  if (isProduction) return auditKey(null, 'missing');
  processAuditKey ??= generateKeyPairSync('ed25519').privateKey;
  return auditKey(processAuditKey, 'development-process');
}

let processAuditKey: KeyObject | undefined;

/** A PKCS#8 PEM Ed25519 private key (`\n` escapes allowed); messages never show the key. */
export function parseAuditSigningKey(value: string, name: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: value.trim().replace(/\\n/g, '\n'), format: 'pem' });
  } catch {
    throw new Error(`${name}: not a PEM private key (make one with: openssl genpkey -algorithm ed25519)`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${name}: must be an Ed25519 key, not ${key.asymmetricKeyType}`);
  return key;
}

export function auditKey(privateKey: KeyObject | null, source: AuditSigningKey['source']): AuditSigningKey {
  const entry = { source } as AuditSigningKey;
  Object.defineProperty(entry, 'privateKey', { value: privateKey, enumerable: false });
  return Object.freeze(entry);
}

export const APP_CONFIG = Symbol('APP_CONFIG');
