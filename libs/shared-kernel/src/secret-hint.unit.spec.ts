import { secretHint } from './secret-hint';

describe('secretHint', () => {
  it.each([
    ['', ''],
    ['abc', ''],
    ['WXYZ', 'Z'],
    ['abcdefg', 'g'],
    ['abcdefgh', 'gh'],
    ['0123456789abcdef', 'cdef'],
    ['0123456789abcdef0123456789abcdef', 'cdef'],
    ['ab🙂cd🙂ef', 'ef'],
  ])('shows at most 4 characters and never more than a quarter of %j: %j', (secret, hint) => {
    expect(secretHint(secret)).toBe(hint);
  });
});
