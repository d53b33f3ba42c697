import { ValidationError } from '@billing/shared-kernel';
import { AddressCategory, classifyAddress, isForbiddenAddress, validateWebhookUrl } from './address-policy';

describe('classifyAddress', () => {
  it.each<[string, AddressCategory]>([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['100.64.1.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    // embedded IPv4, judged by the IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:808:808::1', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    // public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['223.255.255.255', 'public'],
    ['2606:4700::1111', 'public'],
    ['2a00:1450:4001::1', 'public'],
  ])('%s is %s', (ip, category) => {
    expect(classifyAddress(ip)).toBe(category);
  });

  it.each(['localhost', '0x7f.1', '2130706433', '127.1', '1.2.3.256', '', ':::1'])('rejects %p as not an address', (ip) => {
    expect(() => classifyAddress(ip)).toThrow(RangeError);
  });
});

describe('isForbiddenAddress', () => {
  const strict = { allowPrivateNetworks: false };
  const dev = { allowPrivateNetworks: true };

  it.each(['8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (ip) => {
    expect(isForbiddenAddress(ip, strict)).toBe(false);
    expect(isForbiddenAddress(ip, dev)).toBe(false);
  });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1', '169.254.169.254', '10.0.0.1', '100.64.1.1', 'fe80::1', 'fc00::1'])(
    'forbids %s, unless private networks are allowed',
    (ip) => {
      expect(isForbiddenAddress(ip, strict)).toBe(true);
      expect(isForbiddenAddress(ip, dev)).toBe(false);
    },
  );

  it.each(['0.0.0.0', '::', '224.0.0.1', 'ff02::1', '255.255.255.255', '240.0.0.1', '192.0.2.1', '2001:db8::1', '4000::1'])(
    'forbids %s even when private networks are allowed',
    (ip) => {
      expect(isForbiddenAddress(ip, strict)).toBe(true);
      expect(isForbiddenAddress(ip, dev)).toBe(true);
    },
  );

  it('fails closed on something that is not an address', () => {
    expect(isForbiddenAddress('example.com', dev)).toBe(true);
  });
});

describe('validateWebhookUrl', () => {
  const strict = { allowInsecureLoopback: false, allowPrivateNetworks: false };
  const dev = { allowInsecureLoopback: true, allowPrivateNetworks: true };

  function rejection(url: string, options = strict): { code: string; pointer: string } {
    try {
      validateWebhookUrl(url, options);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      const { code, errors } = error as ValidationError;
      return { code, pointer: errors[0].pointer };
    }
    throw new Error(`${url} was accepted`);
  }

  it.each([
    ['https://example.com/hooks?a=1', 'https://example.com/hooks?a=1'],
    ['HTTPS://Example.COM:443/a b', 'https://example.com/a%20b'],
    ['https://example.com:8443', 'https://example.com:8443/'],
    ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
    ['https://[2606:4700::1111]/hook', 'https://[2606:4700::1111]/hook'],
  ])('accepts and normalises %s', (url, normalised) => {
    expect(validateWebhookUrl(url, strict)).toBe(normalised);
  });

  it.each([
    ['', 'invalid-url'],
    ['not a url', 'invalid-url'],
    ['/relative/path', 'invalid-url'],
    ['https://', 'invalid-url'],
    [`https://example.com/${'a'.repeat(2048)}`, 'invalid-url'],
    ['http://example.com/hook', 'insecure-url'],
    ['ftp://example.com/hook', 'insecure-url'],
    ['file:///etc/passwd', 'insecure-url'],
    ['https://user:secret@example.com/hook', 'invalid-url'],
    ['https://user@example.com/hook', 'invalid-url'],
    ['https://example.com/hook#frag', 'invalid-url'],
    ['https://example.com/hook#', 'invalid-url'],
    ['https://example.com:0/hook', 'invalid-url'],
    ['https://example.com:00/hook', 'invalid-url'],
    ['https://8.8.8.8:0/hook', 'invalid-url'],
  ])('rejects %p with %s at /url', (url, code) => {
    expect(rejection(url)).toEqual({ code, pointer: '/url' });
  });

  it('rejects a URL that normalises to more than 2048 characters', () => {
    const url = `https://example.com/${'x '.repeat(700)}x`; // each space becomes %20
    expect(url.length).toBeLessThanOrEqual(2048);
    expect(rejection(url).code).toBe('invalid-url');
  });

  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://127.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/',
    'https://100.64.1.1/',
    'https://0.0.0.0/',
    'https://0/',
    'https://224.0.0.1/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://localhost/',
    'https://api.localhost./',
  ])('rejects the internal host of %s early', (url) => {
    expect(rejection(url).code).toBe('forbidden-address');
  });

  it.each([
    ['https://2130706433/', 'https://127.0.0.1/'],
    ['https://0x7f.1/', 'https://127.0.0.1/'],
    ['https://[::ffff:127.0.0.1]/', 'https://[::ffff:7f00:1]/'],
    ['https://10.0.0.1/', 'https://10.0.0.1/'],
    ['https://[fe80::1]/', 'https://[fe80::1]/'],
    ['https://localhost:8443/', 'https://localhost:8443/'],
  ])('accepts %s when private networks are allowed, normalised to %s', (url, normalised) => {
    expect(validateWebhookUrl(url, dev)).toBe(normalised);
  });

  it.each(['https://0.0.0.0/', 'https://224.0.0.1/', 'https://255.255.255.255/', 'https://[ff02::1]/'])(
    'still rejects %s when private networks are allowed',
    (url) => {
      expect(rejection(url, dev).code).toBe('forbidden-address');
    },
  );

  it.each(['http://localhost:3000/hook', 'http://127.0.0.1:3000/hook', 'http://[::1]:3000/', 'http://hooks.localhost/'])(
    'allows plain http to loopback %s only when insecure loopback is allowed',
    (url) => {
      expect(validateWebhookUrl(url, dev)).toBe(new URL(url).href);
      expect(rejection(url, { ...dev, allowInsecureLoopback: false }).code).toBe('insecure-url');
    },
  );

  it.each(['http://10.0.0.1/', 'http://example.com/', 'http://localhost.example.com/'])('never allows plain http to a non-loopback host %s', (url) => {
    expect(rejection(url, dev).code).toBe('insecure-url');
  });

  it('keeps address and scheme rules independent: insecure loopback without private networks is still forbidden', () => {
    expect(rejection('http://127.0.0.1:3000/', { allowInsecureLoopback: true, allowPrivateNetworks: false }).code).toBe('forbidden-address');
  });

  it('leaves public host names to the delivery-time check', () => {
    expect(validateWebhookUrl('https://internal.example.com/', strict)).toBe('https://internal.example.com/');
  });
});
