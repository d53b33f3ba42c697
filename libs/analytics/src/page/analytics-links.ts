import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, HOSTED_LINK_SECRET_REQUIRED, openToken, SealingKeys, sealingKeys, sealToken, uuidBytes, uuidOf } from '@billing/platform';
import { childPointer, FieldError, UNKNOWN_PROPERTY, ValidationError } from '@billing/shared-kernel';

/** The analytics page's path: `<PUBLIC_BASE_URL>/analytics?token=<token>` (README, Analytics). */
export const ANALYTICS_PAGE_PATH = '/analytics';
export const DEFAULT_LINK_TTL_SECONDS = 15 * 60;
export const MAX_LINK_TTL_SECONDS = 24 * 60 * 60;

/** What a link opens: the environment's analytics, until it expires. */
export interface AnalyticsLinkTarget {
  readonly environmentId: string;
  readonly expiresAt: Date;
}

const PLAINTEXT_BYTES = 16 + 8;

/**
 * Links to the analytics page (a browser cannot send the API's bearer header): the environment id and the expiry
 * instant (milliseconds), sealed like the hosted invoice page's links (platform's sealed-token.ts) under keys derived
 * from HOSTED_LINK_SECRET with their own label, so an invoice link never opens analytics nor the reverse.
 * token = base64url(iv 12 ‖ ciphertext 24 ‖ tag 16): 70 characters. Stateless: a link works until it expires.
 */
@Injectable()
export class AnalyticsLinks {
  private readonly keys: SealingKeys;
  private readonly baseUrl: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.hostedPages.linkSecret === null) throw new Error(HOSTED_LINK_SECRET_REQUIRED);
    this.keys = sealingKeys(config.hostedPages.linkSecret, 'billing analytics links');
    this.baseUrl = config.hostedPages.publicBaseUrl;
  }

  /** A link for the environment, valid from `now` (real time: the base clock, never a test clock) for `ttlSeconds`. */
  create(environmentId: string, now: Date, ttlSeconds: number): { url: string; expiresAt: string } {
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    const expiry = Buffer.alloc(8);
    expiry.writeBigUInt64BE(BigInt(expiresAt.getTime()));
    const token = sealToken(this.keys, Buffer.concat([uuidBytes(environmentId), expiry]));
    return { url: `${this.baseUrl}${ANALYTICS_PAGE_PATH}?token=${token}`, expiresAt: expiresAt.toISOString() };
  }

  /** What a token names, or null (not sealed here, or not a string). The caller compares the expiry with the real (base) now. */
  open(token: unknown): AnalyticsLinkTarget | null {
    if (typeof token !== 'string') return null;
    const plaintext = openToken(this.keys, token, PLAINTEXT_BYTES);
    if (plaintext === null) return null;
    return { environmentId: uuidOf(plaintext.subarray(0, 16)), expiresAt: new Date(Number(plaintext.readBigUInt64BE(16))) };
  }
}

/** `POST /analytics/links`: no body, `{}` or `{"ttlSeconds": <integer 1 … 86 400>}`; the time to live (default 15 minutes). */
export function parseLinkBody(body: unknown): number {
  if (body === undefined || body === null || body === '') return DEFAULT_LINK_TTL_SECONDS;
  if (typeof body !== 'object' || Array.isArray(body)) throw ValidationError.at('', 'the request body must be a JSON object: {"ttlSeconds": <integer>}');
  const errors: FieldError[] = Object.keys(body)
    .filter((key) => key !== 'ttlSeconds')
    .map((key) => ({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY }));
  const ttl = (body as { ttlSeconds?: unknown }).ttlSeconds ?? DEFAULT_LINK_TTL_SECONDS;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_LINK_TTL_SECONDS)
    errors.push({ pointer: '/ttlSeconds', detail: `must be an integer from 1 to ${MAX_LINK_TTL_SECONDS} (24 hours)` });
  if (errors.length > 0) throw new ValidationError('The analytics link request is invalid', errors);
  return ttl as number;
}
