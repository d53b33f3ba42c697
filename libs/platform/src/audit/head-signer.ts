import { Inject, Injectable } from '@nestjs/common';
import { createPublicKey, KeyObject, sign } from 'node:crypto';
import { APP_CONFIG, AppConfig, AUDIT_SIGNING_KEY_REQUIRED } from '../config/app-config';
import { headMessage } from './chain';
import { ChainHead } from './chain-verifier';

export interface SignedHead {
  readonly environmentId: string;
  readonly position: number;
  readonly hash: string;
  /** When the head was read and signed (the server's wall clock, ISO 8601 with milliseconds). */
  readonly at: string;
  /** Ed25519 over headMessage (README, "Audit"), base64. */
  readonly signature: string;
}

/** Signs chain heads with AUDIT_SIGNING_KEY, so a copy kept outside the database proves the past later. */
@Injectable()
export class HeadSigner {
  private readonly privateKey: KeyObject | null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.privateKey = config.auditSigningKey.privateKey;
  }

  sign(head: ChainHead, at: Date): SignedHead {
    const unsigned = { environmentId: head.environmentId, position: head.position, hash: head.hash, at: at.toISOString() };
    return { ...unsigned, signature: sign(null, headMessage(unsigned), this.key()).toString('base64') };
  }

  /** The public key (SPKI PEM) an auditor verifies signed heads with. */
  publicKeyPem(): string {
    return createPublicKey(this.key()).export({ type: 'spki', format: 'pem' }).toString();
  }

  private key(): KeyObject {
    if (!this.privateKey) throw new Error(AUDIT_SIGNING_KEY_REQUIRED);
    return this.privateKey;
  }
}
