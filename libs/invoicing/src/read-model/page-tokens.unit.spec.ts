import { DomainError } from '@billing/shared-kernel';
import { INVOICE_PAGE_TOKEN, TAX_CODE_PAGE_TOKEN } from './page-tokens';

const token = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
const ID = '0b0e7c52-9d3e-4c1a-8f0b-2a7e5d9c4b13';

function pointerOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return [error.code, ...error.errors.map((e) => e.pointer)];
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('invoice page tokens', () => {
  it('given a token this service wrote, when decoded, then the same key', () => {
    const key = { createdAt: '2026-01-15T10:00:00.000Z', id: ID };
    expect(INVOICE_PAGE_TOKEN.decode(INVOICE_PAGE_TOKEN.encode(key))).toEqual(key);
  });

  it.each([
    ['a bare number as date', { createdAt: '1', id: ID }],
    ['a 30 February', { createdAt: '2024-02-30T00:00:00.000Z', id: ID }],
    ['a date without time', { createdAt: '2024-02-01', id: ID }],
    ['month 13', { createdAt: '2024-13-01T00:00:00.000Z', id: ID }],
    ['an offset instead of Z', { createdAt: '2024-02-01T00:00:00.000+01:00', id: ID }],
    ['a number', { createdAt: 1700000000000, id: ID }],
    ['a non-uuid id', { createdAt: '2024-02-01T00:00:00.000Z', id: 'x' }],
    ['a missing id', { createdAt: '2024-02-01T00:00:00.000Z' }],
    ['an array', ['2024-02-01T00:00:00.000Z', ID]],
    ['a string', 'garbage'],
  ])('given a forged token with %s, when decoded, then 422 at /query/pageToken', (_label, key) => {
    expect(pointerOf(() => INVOICE_PAGE_TOKEN.decode(token(key)))).toEqual(['validation-failed', '/query/pageToken']);
  });

  it('given bytes that are not base64url JSON, when decoded, then 422 at /query/pageToken', () => {
    expect(pointerOf(() => INVOICE_PAGE_TOKEN.decode('%%%'))).toEqual(['validation-failed', '/query/pageToken']);
  });
});

describe('tax-code page tokens', () => {
  it('given a token this service wrote, when decoded, then the same code', () => {
    expect(TAX_CODE_PAGE_TOKEN.decode(TAX_CODE_PAGE_TOKEN.encode({ code: 'VAT25 ✓' }))).toEqual({ code: 'VAT25 ✓' });
  });

  it.each([
    ['U+0000', { code: 'a\u0000' }],
    ['a lone surrogate', { code: 'a\ud800' }],
    ['an empty code', { code: '' }],
    ['a code longer than any tax code', { code: 'x'.repeat(51) }],
    ['a number', { code: 5 }],
  ])('given a forged token with %s, when decoded, then 422 at /query/pageToken', (_label, key) => {
    expect(pointerOf(() => TAX_CODE_PAGE_TOKEN.decode(token(key)))).toEqual(['validation-failed', '/query/pageToken']);
  });
});
