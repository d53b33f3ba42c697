import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret } from '@billing/shared-kernel';
import { generateSignatureKey, SIGNATURE_KEY_BYTES } from './domain';
import { WEBHOOKS_CONFIG, WebhooksConfig } from './config/webhooks-config';

/**
 * Creates signature keys and keeps them encrypted at rest. The ciphertext is
 * bound to its subscription (associated data `<environment>/<subscription>`),
 * so a copy in another subscription's stream does not decrypt.
 */
@Injectable()
export class SignatureKeyVault {
  /**
   * Decrypted keys by ciphertext and subscription: the dispatcher signs every
   * send with its subscription's key, and decrypting it (AES-GCM, a cipher
   * object each time) was a tenth of a send's CPU. A rotation stores a new
   * ciphertext, so it is a new entry; the map is emptied when it is full.
   */
  private readonly decrypted = new Map<string, string>();

  constructor(@Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig) {}

  newKey(environmentId: string, subscriptionId: string): { signatureKey: string; encryptedSignatureKey: string } {
    const signatureKey = generateSignatureKey(randomBytes(SIGNATURE_KEY_BYTES));
    return { signatureKey, encryptedSignatureKey: this.encrypt(environmentId, subscriptionId, signatureKey) };
  }

  encrypt(environmentId: string, subscriptionId: string, signatureKey: string): string {
    return encryptSecret(signatureKey, this.config.encryptionKey, randomBytes(12), associatedData(environmentId, subscriptionId));
  }

  decrypt(environmentId: string, subscriptionId: string, encryptedSignatureKey: string): string {
    const cacheKey = `${associatedData(environmentId, subscriptionId)}/${encryptedSignatureKey}`;
    let signatureKey = this.decrypted.get(cacheKey);
    if (signatureKey === undefined) {
      signatureKey = decryptSecret(encryptedSignatureKey, this.config.encryptionKey, associatedData(environmentId, subscriptionId));
      if (this.decrypted.size >= DECRYPTED_KEYS_KEPT) this.decrypted.clear();
      this.decrypted.set(cacheKey, signatureKey);
    }
    return signatureKey;
  }
}

/** Subscriptions whose decrypted key is kept (a few hundred bytes each). */
const DECRYPTED_KEYS_KEPT = 10_000;

function associatedData(environmentId: string, subscriptionId: string): string {
  return `${environmentId}/${subscriptionId}`;
}
