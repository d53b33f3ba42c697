import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy, StrategyOptionsWithoutRequest } from 'passport-jwt';
import { APP_CONFIG, AppConfig } from '../config/app-config';

export interface TokenClaims {
  readonly sub?: string;
  readonly environments?: unknown;
}

/**
 * Bearer JWTs with pinned algorithms: HS256 with JWT_SECRET in development,
 * RS256/ES256 with JWT_PUBLIC_KEY or a JWKS URL in production. `alg: none`
 * and any algorithm outside the pinned list are rejected by the verifier.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const { jwt } = config;
    const options: StrategyOptionsWithoutRequest = {
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: [...jwt.algorithms] as StrategyOptionsWithoutRequest['algorithms'],
      ignoreExpiration: false,
      ...(jwt.issuer ? { issuer: jwt.issuer } : {}),
      ...(jwt.audience ? { audience: jwt.audience } : {}),
      ...(jwt.jwksUrl
        ? { secretOrKeyProvider: passportJwtSecret({ jwksUri: jwt.jwksUrl, cache: true, rateLimit: true }) }
        : { secretOrKey: (jwt.publicKey ?? jwt.secret) as string }),
    } as StrategyOptionsWithoutRequest;
    super(options);
  }

  validate(claims: TokenClaims): TokenClaims {
    return claims;
  }
}
