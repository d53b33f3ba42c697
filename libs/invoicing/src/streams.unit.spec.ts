import { taxCodeStreamId } from './streams';

describe('taxCodeStreamId', () => {
  const env = '3f2c8a8e-2a8f-4e0b-9d7c-1b2a3c4d5e6f';

  it('is a deterministic version-5 uuid of (environment, code)', () => {
    const id = taxCodeStreamId(env, 'VAT25');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(taxCodeStreamId(env, 'VAT25')).toBe(id);
  });

  it('differs by code (case-sensitive) and by environment', () => {
    const ids = new Set([
      taxCodeStreamId(env, 'VAT25'),
      taxCodeStreamId(env, 'vat25'),
      taxCodeStreamId(env, 'VAT2'),
      taxCodeStreamId('3f2c8a8e-2a8f-4e0b-9d7c-1b2a3c4d5e60', 'VAT25'),
    ]);
    expect(ids.size).toBe(4);
  });

  it('keeps the environment and code apart (no ambiguity when concatenated)', () => {
    expect(taxCodeStreamId(env, 'a')).not.toBe(taxCodeStreamId(`${env}a`, ''));
  });
});
