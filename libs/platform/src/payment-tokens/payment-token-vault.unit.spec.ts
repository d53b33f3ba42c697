import { randomBytes } from 'node:crypto';
import { paymentTokenHint, secretHint } from '@billing/shared-kernel';
import { PaymentTokenVault } from './payment-token-vault';

const key = (id: string) => ({ id, key: randomBytes(32) });
const vaultOf = (...keys: { id: string; key: Buffer }[]) => new PaymentTokenVault({ paymentsEncryptionKeys: { keys, source: 'environment' } });
const ENVIRONMENT = '6a0b5f47-3c1e-4d0e-9a57-0c2f1a4d9b11';

describe('payment-method tokens sealed at rest', () => {
  const old = key('old');
  const current = key('current');

  it('given a token, when sealed, then it holds neither the token nor a part of it beyond the hint, and opens to the token', () => {
    const vault = vaultOf(current);
    const token = 'pm_card_visa_4242424242424242';
    const sealed = vault.seal(ENVIRONMENT, token);
    expect(sealed).not.toContain('4242424242');
    expect(sealed).not.toContain('pm_card');
    expect(paymentTokenHint(sealed)).toBe(secretHint(token));
    expect(vault.open(ENVIRONMENT, sealed)).toBe(token);
    expect(vault.seal(ENVIRONMENT, token)).not.toBe(sealed);
  });

  it('given a sealed token, when sealed again, then it is kept as it is', () => {
    const vault = vaultOf(current);
    const sealed = vault.seal(ENVIRONMENT, 'tok_success');
    expect(vault.seal(ENVIRONMENT, sealed)).toBe(sealed);
  });

  it('given a token kept in clear (an event from before sealing), then it opens to itself and its hint is the usual one', () => {
    expect(vaultOf(current).open(ENVIRONMENT, 'tok_success')).toBe('tok_success');
    expect(paymentTokenHint('tok_success')).toBe(secretHint('tok_success'));
  });

  it('given a rotation, then a token sealed under the old key still opens while the old key is configured', () => {
    const sealed = vaultOf(old).seal(ENVIRONMENT, 'tok_success');
    expect(vaultOf(current, old).open(ENVIRONMENT, sealed)).toBe('tok_success');
    expect(() => vaultOf(current).open(ENVIRONMENT, sealed)).toThrow(/key "old"/);
  });

  it('given a sealed token copied to another environment or altered, then it does not open', () => {
    const vault = vaultOf(current);
    const sealed = vault.seal(ENVIRONMENT, 'tok_success');
    expect(() => vault.open('0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9', sealed)).toThrow();
    // The tag's first character: it carries the top six bits of the tag's first byte, so any other one changes the tag.
    const parts = sealed.split('.');
    const tag = parts.length - 2;
    parts[tag] = `${parts[tag][0] === 'A' ? 'B' : 'A'}${parts[tag].slice(1)}`;
    expect(() => vault.open(ENVIRONMENT, parts.join('.'))).toThrow('secret box could not be authenticated');
  });

  it('given no payments encryption key (production without it), then sealing refuses', () => {
    expect(() => vaultOf().seal(ENVIRONMENT, 'tok_success')).toThrow(/PAYMENTS_ENCRYPTION_KEY/);
  });
});
