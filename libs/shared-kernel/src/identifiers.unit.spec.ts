import { uuidV5 } from './identifiers';

describe('uuidV5', () => {
  it('takes any uuid as its namespace, not only RFC versions and variants (ids it gave before the uuid package stay the same)', () => {
    expect(uuidV5('x', '11111111-1111-1111-1111-111111111111')).toBe('71dc5a4e-b5cf-5e7a-9d45-42fb127b7e31');
  });

  it('refuses a namespace that is not a uuid', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(RangeError);
  });
});
