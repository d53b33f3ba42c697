/** The most characters of a secret any hint shows. */
export const MAX_HINT_LENGTH = 4;

/**
 * The one hint of a secret (a provider key, a payment-method token): its last
 * characters, enough to tell two apart, at most MAX_HINT_LENGTH and never
 * more than a quarter of the secret, so a short secret is never shown whole
 * or nearly. `secret` is the secret part alone, without a public prefix such
 * as `sk_sandbox_`.
 */
export function secretHint(secret: string): string {
  const characters = [...secret];
  const shown = Math.min(MAX_HINT_LENGTH, Math.floor(characters.length / 4));
  return characters.slice(characters.length - shown).join('');
}
