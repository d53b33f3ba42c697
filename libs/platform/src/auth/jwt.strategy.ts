import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { passportJwtSecret } from 'jwks-rsa';
import { createPublicKey, createSecretKey, KeyObject } from 'node:crypto';
import { SecretOrKeyProvider, Strategy, StrategyOptionsWithoutRequest } from 'passport-jwt';
import { APP_CONFIG, AppConfig, JwtConfig } from '../config/app-config';

export interface TokenClaims {
  readonly sub: string;
  readonly environments?: unknown;
  readonly exp?: number;
  readonly iat?: number;
}

/** Exactly `Bearer <three base64url segments>`: anything before, after or between is not a token. */
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

export function bearerToken(request: { headers: Record<string, string | string[] | undefined> }): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  return BEARER.exec(header)?.[1] ?? null;
}

/** The prefix of the service's own actors (`system:billing-engine`…): no caller may pass for one of them. */
export const SYSTEM_ACTOR_PREFIX = 'system:';
const MAX_SUBJECT_LENGTH = 255;
/** Printable: no control, format, private-use, unassigned or lone surrogate code point, no space at either end. */
const PRINTABLE_SUBJECT = /^[^\p{C}\s](?:[^\p{C}]*[^\p{C}\s])?$/u;

/**
 * The `sub` is recorded as the actor of every event the caller causes (in
 * jsonb, and in the audit chain): only a name that can be stored and read
 * back is accepted, and never one of the service's own actors.
 */
export function isAcceptableSubject(sub: unknown): sub is string {
  return typeof sub === 'string' && [...sub].length <= MAX_SUBJECT_LENGTH && PRINTABLE_SUBJECT.test(sub) && !sub.toLowerCase().startsWith(SYSTEM_ACTOR_PREFIX);
}

/**
 * A token is accepted only as a JSON object with an acceptable `sub` and an
 * `exp`, and only if the lifetime it claims (from `iat`, or from now when it
 * has none) is within the configured maximum: a leaked token must not be
 * valid forever.
 */
export function acceptClaims(claims: unknown, maxTtlSeconds: number, nowSeconds: number): TokenClaims | null {
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return null;
  const { exp, iat, sub } = claims as Partial<TokenClaims>;
  if (!isAcceptableSubject(sub)) return null;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return null;
  if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) return null;
  const issuedAt = iat === undefined ? nowSeconds : Math.min(iat, nowSeconds);
  if (exp - issuedAt > maxTtlSeconds) return null;
  return claims as TokenClaims;
}

/**
 * Keys are parsed once into KeyObjects: given a string, jsonwebtoken parses
 * it on every verification (for a shared secret it even tries a public key
 * first), which dominated the CPU profile of a GET.
 */
function keyOptions(jwt: JwtConfig): { secretOrKey: KeyObject } | { secretOrKeyProvider: SecretOrKeyProvider } {
  if (jwt.jwksUrl) {
    const pemProvider = passportJwtSecret({ jwksUri: jwt.jwksUrl, cache: true, rateLimit: true }) as SecretOrKeyProvider;
    const parsed = new Map<string, KeyObject>();
    return {
      secretOrKeyProvider: (request, rawToken, done) =>
        pemProvider(request, rawToken, (error: unknown, pem?: string | Buffer) => {
          if (error || !pem) return done(error ?? new Error('no signing key'));
          const text = pem.toString();
          let key = parsed.get(text);
          if (!key) {
            key = createPublicKey(text);
            parsed.set(text, key);
          }
          done(null, key as unknown as string);
        }),
    };
  }
  if (jwt.publicKey) return { secretOrKey: createPublicKey(jwt.publicKey) };
  return { secretOrKey: createSecretKey(Buffer.from(jwt.secret as string)) };
}

/**
 * Bearer JWTs with pinned algorithms: HS256 with JWT_SECRET in development,
 * RS256/ES256 with JWT_PUBLIC_KEY or a JWKS URL in production. `alg: none`
 * and any algorithm outside the pinned list are rejected by the verifier.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  private readonly maxTtlSeconds: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { jwt } = config;
    super({
      jwtFromRequest: bearerToken,
      algorithms: [...jwt.algorithms] as StrategyOptionsWithoutRequest['algorithms'],
      ignoreExpiration: false,
      ...(jwt.issuer ? { issuer: jwt.issuer } : {}),
      ...(jwt.audience ? { audience: jwt.audience } : {}),
      ...keyOptions(jwt),
    } as StrategyOptionsWithoutRequest);
    this.maxTtlSeconds = jwt.maxTtlSeconds;
  }

  validate(claims: unknown): TokenClaims | false {
    return acceptClaims(claims, this.maxTtlSeconds, Math.floor(Date.now() / 1000)) ?? false;
  }
}
