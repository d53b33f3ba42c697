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
 * - The associated data binds the ciphertext to its environment and
 *   provider, so a blob copied to another environment or provider does not
 *   decrypt.
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

  encrypt(environmentId: string, providerName: string, credentials: object): EncryptedCredentials {
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
    cipher.setAAD(associatedData(environmentId, providerName));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.current.id, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url') };
  }

  /** Throws CredentialDecryptionError when the blob does not decrypt to a JSON object for this environment and provider. */
  decrypt(environmentId: string, providerName: string, encrypted: EncryptedCredentials): object {
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
    decipher.setAAD(associatedData(environmentId, providerName));
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
function associatedData(environmentId: string, providerName: string): Buffer {
  return Buffer.from(JSON.stringify(['payment-provider-credentials/v1', environmentId, providerName]), 'utf8');
}

function isJsonObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
