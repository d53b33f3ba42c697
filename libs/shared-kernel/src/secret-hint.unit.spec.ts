import { secretHint } from './secret-hint';

describe('secretHint', () => {
  it.each([
    ['tok_success', 'ss'],
    ['tok_decline_insufficient_funds', 'unds'],
    ['abcd', 'd'],
    ['abc', ''],
    ['', ''],
  ])('shows of %s only %s: at most 4 characters, never more than a quarter', (secret, hint) => {
    expect(secretHint(secret)).toBe(hint);
  });
});
