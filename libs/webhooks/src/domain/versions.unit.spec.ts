import { ValidationError } from '@billing/shared-kernel';
import { NEWEST_VERSION, SUPPORTED_VERSIONS, isSupportedVersion, resolveVersion } from './versions';

describe('resolveVersion', () => {
  it('newest is 2022-03, the only supported version', () => {
    expect(NEWEST_VERSION).toBe('2022-03');
    expect(SUPPORTED_VERSIONS).toEqual(['2022-03']);
  });

  it.each([undefined, '', '  '])('a missing header (%p) selects the newest version', (header) => {
    expect(resolveVersion(header)).toBe(NEWEST_VERSION);
  });

  it('accepts a supported version, ignoring surrounding blanks', () => {
    expect(resolveVersion('2022-03')).toBe('2022-03');
    expect(resolveVersion(' 2022-03 ')).toBe('2022-03');
  });

  it.each([
    ['2023-01', /unknown version 2023-01/],
    ['2022-13', /YYYY-MM/],
    ['2022-3', /YYYY-MM/],
    ['v4.2024.7.1', /YYYY-MM/],
    ['latest', /YYYY-MM/],
  ])('rejects %p at /headers/x-version with unknown-version', (header, detail) => {
    try {
      resolveVersion(header);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      const { code, errors } = error as ValidationError;
      expect(code).toBe('unknown-version');
      expect(errors).toEqual([{ pointer: '/headers/x-version', detail: expect.stringMatching(detail) }]);
    }
  });

  it('isSupportedVersion narrows only supported labels', () => {
    expect(isSupportedVersion('2022-03')).toBe(true);
    expect(isSupportedVersion('2022-04')).toBe(false);
    expect(isSupportedVersion(202203)).toBe(false);
  });
});
