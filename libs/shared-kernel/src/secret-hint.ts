/** A hint shows at most this many trailing characters of a secret. */
const HINT_MAX_LENGTH = 4;

/**
 * What the API, the events log, notifications and logs may show of a secret
 * (a payment method token): its last characters, at most 4 and never more
 * than a quarter of it, so that a short secret is not given away whole.
 */
export function secretHint(secret: string): string {
  const characters = [...secret];
  return characters.slice(characters.length - Math.min(HINT_MAX_LENGTH, Math.floor(characters.length / 4))).join('');
}
