import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, generateSignatureKey, SIGNATURE_KEY_BYTES } from './domain';
import { WEBHOOKS_CONFIG, WebhooksConfig } from './config/webhooks-config';

/**
 * Creates signature keys and keeps them encrypted at rest. The ciphertext is
 * bound to its subscription (associated data `<environment>/<subscription>`),
 * so a copy in another subscription's stream does not decrypt.
 */
@Injectable()
export class SignatureKeyVault {
  constructor(@Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig) {}

  newKey(environmentId: string, subscriptionId: string): { signatureKey: string; encryptedSignatureKey: string } {
    const signatureKey = generateSignatureKey(randomBytes(SIGNATURE_KEY_BYTES));
    return { signatureKey, encryptedSignatureKey: this.encrypt(environmentId, subscriptionId, signatureKey) };
  }

  encrypt(environmentId: string, subscriptionId: string, signatureKey: string): string {
    return encryptSecret(signatureKey, this.config.encryptionKey, randomBytes(12), associatedData(environmentId, subscriptionId));
  }

  decrypt(environmentId: string, subscriptionId: string, encryptedSignatureKey: string): string {
    return decryptSecret(encryptedSignatureKey, this.config.encryptionKey, associatedData(environmentId, subscriptionId));
  }
}

function associatedData(environmentId: string, subscriptionId: string): string {
  return `${environmentId}/${subscriptionId}`;
}
