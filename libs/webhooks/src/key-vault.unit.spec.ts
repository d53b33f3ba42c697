import { randomBytes } from 'node:crypto';
import { WebhooksConfig } from './config/webhooks-config';
import { SignatureKeyVault } from './key-vault';

const ENVIRONMENT = '5d1f0000-0000-4000-8000-000000000001';
const SUBSCRIPTION = '0b6c0000-0000-4000-8000-000000000001';
const OTHER_SUBSCRIPTION = '0b6c0000-0000-4000-8000-000000000002';

describe('SignatureKeyVault', () => {
  const vault = new SignatureKeyVault({ encryptionKey: randomBytes(32) } as WebhooksConfig);

  it('decrypts the same ciphertext to the same key every time (kept after the first)', () => {
    const { signatureKey, encryptedSignatureKey } = vault.newKey(ENVIRONMENT, SUBSCRIPTION);
    expect(vault.decrypt(ENVIRONMENT, SUBSCRIPTION, encryptedSignatureKey)).toBe(signatureKey);
    expect(vault.decrypt(ENVIRONMENT, SUBSCRIPTION, encryptedSignatureKey)).toBe(signatureKey);
  });

  it('answers a rotated key from its new ciphertext, never the old key', () => {
    const first = vault.newKey(ENVIRONMENT, SUBSCRIPTION);
    expect(vault.decrypt(ENVIRONMENT, SUBSCRIPTION, first.encryptedSignatureKey)).toBe(first.signatureKey);
    const rotated = vault.newKey(ENVIRONMENT, SUBSCRIPTION);
    expect(vault.decrypt(ENVIRONMENT, SUBSCRIPTION, rotated.encryptedSignatureKey)).toBe(rotated.signatureKey);
  });

  it('refuses a ciphertext copied to another subscription, even once decrypted for its own', () => {
    const { encryptedSignatureKey } = vault.newKey(ENVIRONMENT, SUBSCRIPTION);
    vault.decrypt(ENVIRONMENT, SUBSCRIPTION, encryptedSignatureKey);
    expect(() => vault.decrypt(ENVIRONMENT, OTHER_SUBSCRIPTION, encryptedSignatureKey)).toThrow();
  });
});
