import { randomUUID } from 'node:crypto';
import { HostedLinks } from '@billing/invoicing';
import { HOSTED_LINK_SECRET_REQUIRED, loadConfig } from '@billing/platform';
import { AnalyticsLinks, parseLinkBody } from './analytics-links';

describe('AnalyticsLinks', () => {
  const config = loadConfig({ PUBLIC_BASE_URL: 'https://billing.example.com' });
  const links = new AnalyticsLinks(config);
  const environmentId = randomUUID();
  const now = new Date('2026-03-01T10:00:00.000Z');

  it('given an environment and a time to live, then a link under PUBLIC_BASE_URL that opens to the environment and its expiry', () => {
    const { url, expiresAt } = links.create(environmentId, now, 900);
    expect(expiresAt).toBe('2026-03-01T10:15:00.000Z');
    expect(url).toMatch(/^https:\/\/billing\.example\.com\/analytics\?token=[A-Za-z0-9_-]{70}$/);
    expect(links.open(new URL(url).searchParams.get('token'))).toEqual({ environmentId, expiresAt: new Date(expiresAt) });
  });

  it('given a changed token, another key, an invoice link or no string, when opened, then nothing', () => {
    const token = new URL(links.create(environmentId, now, 60).url).searchParams.get('token')!;
    const changed = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    expect(links.open(changed)).toBeNull();
    expect(new AnalyticsLinks(loadConfig({ HOSTED_LINK_SECRET: 'another-secret-of-at-least-32-characters!' })).open(token)).toBeNull();
    const invoiceLink = new HostedLinks(config).urlOf(environmentId, { id: randomUUID(), status: 'booked' })!.split('/i/')[1];
    expect(links.open(invoiceLink)).toBeNull();
    expect(links.open(undefined)).toBeNull();
    expect(links.open(['a'])).toBeNull();
  });

  it('given production without HOSTED_LINK_SECRET, then it refuses to start', () => {
    expect(() => new AnalyticsLinks(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' }))).toThrow(HOSTED_LINK_SECRET_REQUIRED);
  });
});

describe('parseLinkBody', () => {
  it('given no body or {}, then 15 minutes; given ttlSeconds, then it', () => {
    expect(parseLinkBody(undefined)).toBe(900);
    expect(parseLinkBody({})).toBe(900);
    expect(parseLinkBody({ ttlSeconds: 86_400 })).toBe(86_400);
  });

  it.each([[{ ttlSeconds: 0 }], [{ ttlSeconds: 86_401 }], [{ ttlSeconds: 1.5 }], [{ ttlSeconds: '60' }]])('given %j, then 422 at /ttlSeconds', (body) => {
    expect(() => parseLinkBody(body)).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/ttlSeconds' })] }));
  });

  it('given an unknown property or not an object, then 422', () => {
    expect(() => parseLinkBody({ ttl: 5 })).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/ttl' })] }));
    expect(() => parseLinkBody([1])).toThrow(expect.objectContaining({ kind: 'validation' }));
  });
});
