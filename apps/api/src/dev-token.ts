import { sign } from 'jsonwebtoken';
import { AppConfig } from '@billing/platform';

/** A development token (HS256 with the configured secret) for the given environments. */
export function signDevelopmentToken(config: AppConfig, environments: string[], subject = 'developer', expiresInSeconds = 12 * 3600): string {
  if (!config.jwt.secret) throw new Error('development tokens need JWT_SECRET (HS256)');
  return sign({ environments }, config.jwt.secret, {
    algorithm: 'HS256',
    subject,
    expiresIn: expiresInSeconds,
    ...(config.jwt.issuer ? { issuer: config.jwt.issuer } : {}),
    ...(config.jwt.audience ? { audience: config.jwt.audience } : {}),
  });
}
