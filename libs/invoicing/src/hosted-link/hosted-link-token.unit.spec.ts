import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { hostedLinkKeys, openHostedLink, sealHostedLink } from './hosted-link-token';

describe('hosted link tokens', () => {
  const keys = hostedLinkKeys('a-test-secret-of-at-least-32-characters');
  const target = { environmentId: randomUUID(), invoiceId: randomUUID(), linkVersion: 0 };

  it('given any target, when sealed, then it opens to that target, deterministically, as 86 base64url characters', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), fc.nat(), (environmentId, invoiceId, linkVersion) => {
        const sealed = { environmentId, invoiceId, linkVersion };
        const token = sealHostedLink(keys, sealed);
        expect(token).toMatch(/^[A-Za-z0-9_-]{86}$/);
        expect(sealHostedLink(keys, sealed)).toBe(token);
        expect(openHostedLink(keys, token)).toEqual(sealed);
      }),
    );
  });

  it('given another link version, invoice or environment, when sealed, then the token differs', () => {
    const token = sealHostedLink(keys, target);
    expect(sealHostedLink(keys, { ...target, linkVersion: 1 })).not.toBe(token);
    expect(sealHostedLink(keys, { ...target, invoiceId: randomUUID() })).not.toBe(token);
    expect(sealHostedLink(keys, { ...target, environmentId: randomUUID() })).not.toBe(token);
  });

  it('given a token, then it contains neither id in any encoding', () => {
    const token = sealHostedLink(keys, target);
    for (const id of [target.environmentId, target.invoiceId]) {
      const bytes = Buffer.from(id.replace(/-/g, ''), 'hex');
      expect(Buffer.from(token, 'base64url').includes(bytes.subarray(0, 4))).toBe(false);
      expect(token).not.toContain(id.replace(/-/g, '').slice(0, 8));
    }
  });

  it('given a changed character, another key, a wrong length or a non-canonical spelling, when opened, then nothing', () => {
    const token = sealHostedLink(keys, target);
    fc.assert(
      fc.property(
        fc.nat({ max: token.length - 1 }),
        fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
        (index, character) => {
          fc.pre(token[index] !== character);
          const changed = `${token.slice(0, index)}${character}${token.slice(index + 1)}`;
          // A change of the last character's 2 padding bits spells the same bytes non-canonically: refused as well.
          expect(openHostedLink(keys, changed)).toBeNull();
        },
      ),
    );
    expect(openHostedLink(hostedLinkKeys('another-secret-of-at-least-32-characters'), token)).toBeNull();
    for (const wrong of ['', 'x', token.slice(0, -1), `${token}A`, `${token}=`, token.replace(/.$/, '+')]) expect(openHostedLink(keys, wrong)).toBeNull();
  });
});
