import { DomainError } from '@billing/shared-kernel';
import { keysetPage, pageTokenCodec, tokenField } from './paging';

const codec = pageTokenCodec({ position: tokenField.bigint, code: tokenField.text(10) });
const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function pointerOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error.errors[0]?.pointer;
    throw error;
  }
  return undefined;
}

describe('page tokens', () => {
  it('given a token the codec wrote, when decoded, then the same key', () => {
    expect(codec.decode(codec.encode({ position: '123456789012345678', code: 'VAT ✓' }))).toEqual({ position: '123456789012345678', code: 'VAT ✓' });
  });

  it.each([
    ['U+0000', { position: '1', code: 'a\u0000' }],
    ['a lone surrogate', { position: '1', code: '\udc00' }],
    ['a number for a bigint', { position: 1, code: 'a' }],
    ['a bigint past 18 digits', { position: '1'.repeat(19), code: 'a' }],
    ['a text too long', { position: '1', code: 'x'.repeat(11) }],
    ['a missing member', { position: '1' }],
    ['an extra member', { position: '1', code: 'a', f: 'x' }],
    ['null', null],
    ['an array', ['1', 'a']],
  ])('given a forged token with %s, when decoded, then 422 at /query/pageToken', (_label, key) => {
    expect(pointerOf(() => codec.decode(raw(key)))).toBe('/query/pageToken');
  });

  it('given text that is not base64url, or far longer than any token, when decoded, then 422 at /query/pageToken', () => {
    expect(pointerOf(() => codec.decode('%%%'))).toBe('/query/pageToken');
    expect(pointerOf(() => codec.decode('A'.repeat(3000)))).toBe('/query/pageToken');
  });
});

describe('keysetPage', () => {
  const rows = Array.from({ length: 6 }, (_, index) => ({ position: String(index + 1), code: 'c', size: 40 }));
  const options = {
    codec,
    key: (row: (typeof rows)[number]) => ({ position: row.position, code: row.code }),
    item: (row: (typeof rows)[number]) => row.position,
    size: () => 40,
  };

  it('given limit + 1 rows, when paged, then limit items and a token after the last', () => {
    const page = keysetPage(rows.slice(0, 4), { ...options, limit: 3 });
    expect([page.items, codec.decode(page.nextPageToken!)]).toEqual([['1', '2', '3'], { position: '3', code: 'c' }]);
  });

  it('given items past the byte bound, when paged, then the page stops before them and the token continues after the last kept', () => {
    const page = keysetPage(rows, { ...options, limit: 5, maxBytes: 100 });
    expect([page.items, codec.decode(page.nextPageToken!)]).toEqual([['1', '2'], { position: '2', code: 'c' }]);
  });

  it('given a first item larger than the bound, when paged, then it is answered alone (a page always makes progress)', () => {
    expect(keysetPage(rows, { ...options, limit: 5, maxBytes: 10 }).items).toEqual(['1']);
  });

  it('given the last rows within both bounds, when paged, then no token', () => {
    expect(keysetPage(rows.slice(0, 2), { ...options, limit: 5, maxBytes: 100 })).toEqual({ items: ['1', '2'], nextPageToken: null });
  });

  it('by default measures each item as its JSON', () => {
    const page = keysetPage(rows, { codec, key: options.key, item: () => ({ text: 'x'.repeat(30) }), limit: 5, maxBytes: 100 });
    expect(page.items).toHaveLength(2);
  });
});
