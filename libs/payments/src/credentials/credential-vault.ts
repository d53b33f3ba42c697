/**
 * Encryption at rest for payment provider credentials (API keys, account
 * ids: a JSON object per environment and provider). Events and tables hold
 * only AES-256-GCM ciphertext under a server key held outside the database
 * (PAYMENTS_ENCRYPTION_KEY; see AppConfig.paymentsEncryptionKeys).
 *
 * - `ciphertext` is base64url of `iv (12 bytes) | tag (16 bytes) | data`, a
 *   fresh random IV per encryption.
 * - `keyId` names the key that encrypted it. The first configured key
 *   encrypts, every configured key decrypts: to rotate, put a new key first,
 *   re-encrypt (`reencrypt`), then drop the old one.
 * - The associated data binds the ciphertext to its environment, provider
 *   and purpose, so a blob copied to another environment or provider, or
 *   used as another kind of secret, does not decrypt. Besides credentials it
 *   keeps the payment method token a payment was asked with (`token`).
 *
 * Neither keys nor credentials ever appear in an error message.
 */
import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { APP_CONFIG, AppConfig, PAYMENTS_ENCRYPTION_KEY_REQUIRED, PaymentsEncryptionKey } from '@billing/platform';

export interface EncryptedCredentials {
  readonly keyId: string;
  readonly ciphertext: string;
}

/** A blob that does not decrypt: unknown key, malformed, another environment or provider, or altered. */
export class CredentialDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialDecryptionError';
  }
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** What a blob holds, bound into its associated data (the credentials' name predates the others: kept, or they would not decrypt). */
type Purpose = 'payment-provider-credentials/v1' | 'payment-method-token/v1';
const CREDENTIALS: Purpose = 'payment-provider-credentials/v1';

@Injectable()
export class CredentialVault {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly current: PaymentsEncryptionKey;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'paymentsEncryptionKeys'>) {
    const { keys } = config.paymentsEncryptionKeys;
    // Production without PAYMENTS_ENCRYPTION_KEY: loadConfig leaves the list empty and startup refuses; so does the vault.
    if (keys.length === 0) throw new Error(PAYMENTS_ENCRYPTION_KEY_REQUIRED);
    for (const key of keys) if (key.key.length !== KEY_BYTES) throw new RangeError(`payments encryption key "${key.id}": AES-256-GCM needs 32 bytes`);
    this.keys = new Map(keys.map((key) => [key.id, key.key]));
    this.current = keys[0];
  }

  /** The id of the key `encrypt` uses. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** A payment method token, for a payment that may have to be charged again later (its reference unchanged). */
  encryptToken(environmentId: string, providerName: string, token: string): EncryptedCredentials {
    return this.encrypt(environmentId, providerName, { token }, 'payment-method-token/v1');
  }

  /** Throws CredentialDecryptionError like `decrypt`. */
  decryptToken(environmentId: string, providerName: string, encrypted: EncryptedCredentials): string {
    const { token } = this.decrypt(environmentId, providerName, encrypted, 'payment-method-token/v1') as { token?: unknown };
    if (typeof token !== 'string') throw new CredentialDecryptionError('a payment method token did not decrypt to a token');
    return token;
  }

  encrypt(environmentId: string, providerName: string, credentials: object, purpose: Purpose = CREDENTIALS): EncryptedCredentials {
    if (!isJsonObject(credentials)) throw new TypeError('payment credentials must be a JSON object');
    let plaintext: string | undefined;
    try {
      plaintext = JSON.stringify(credentials);
    } catch {
      plaintext = undefined; // the engine's message may quote the credentials
    }
    if (plaintext === undefined || !plaintext.startsWith('{')) throw new TypeError('payment credentials must be serialisable as a JSON object');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(environmentId, providerName, purpose));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.current.id, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url') };
  }

  /** Throws CredentialDecryptionError when the blob does not decrypt to a JSON object for this environment and provider. */
  decrypt(environmentId: string, providerName: string, encrypted: EncryptedCredentials, purpose: Purpose = CREDENTIALS): object {
    const key = this.keys.get(encrypted.keyId);
    if (!key) {
      throw new CredentialDecryptionError(
        `payment credentials were encrypted with key "${encrypted.keyId}", which PAYMENTS_ENCRYPTION_KEY does not hold (removed before they were re-encrypted?)`,
      );
    }
    if (typeof encrypted.ciphertext !== 'string' || !BASE64URL.test(encrypted.ciphertext)) {
      throw new CredentialDecryptionError('payment credentials ciphertext is malformed (not base64url)');
    }
    const blob = Buffer.from(encrypted.ciphertext, 'base64url');
    if (blob.length < IV_BYTES + TAG_BYTES) throw new CredentialDecryptionError('payment credentials ciphertext is malformed (too short)');
    const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(blob.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    decipher.setAAD(associatedData(environmentId, providerName, purpose));
    let plaintext: string;
    try {
      plaintext = Buffer.concat([decipher.update(blob.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new CredentialDecryptionError(
        `payment credentials could not be authenticated with key "${encrypted.keyId}": a wrong key, another environment or provider, or altered`,
      );
    }
    let credentials: unknown;
    try {
      credentials = JSON.parse(plaintext);
    } catch {
      credentials = undefined; // the engine's message would quote the plaintext
    }
    if (!isJsonObject(credentials)) throw new CredentialDecryptionError('payment credentials did not decrypt to a JSON object');
    return credentials;
  }

  /** Whether the blob was encrypted with another key than the current one (to re-encrypt after a rotation). */
  needsReencryption(encrypted: EncryptedCredentials): boolean {
    return encrypted.keyId !== this.current.id;
  }

  /** The blob under the current key (the same blob when it already is). */
  reencrypt(environmentId: string, providerName: string, encrypted: EncryptedCredentials): EncryptedCredentials {
    if (!this.needsReencryption(encrypted)) return encrypted;
    return this.encrypt(environmentId, providerName, this.decrypt(environmentId, providerName, encrypted));
  }
}

/** Unambiguous (a JSON array, so no separator can be forged) and specific to this use of the keys. */
function associatedData(environmentId: string, providerName: string, purpose: Purpose): Buffer {
  return Buffer.from(JSON.stringify([purpose, environmentId, providerName]), 'utf8');
}

function isJsonObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
