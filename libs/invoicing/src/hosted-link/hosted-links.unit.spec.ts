import { randomUUID } from 'node:crypto';
import { HOSTED_LINK_SECRET_REQUIRED, loadConfig } from '@billing/platform';
import { HostedLinks } from './hosted-links';

describe('HostedLinks', () => {
  const links = new HostedLinks(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' }));
  const environmentId = randomUUID();
  const invoice = { id: randomUUID(), status: 'booked' as const, hostedLinkVersion: 2 };

  it('given a booked or void invoice, then a link under PUBLIC_BASE_URL that opens to it at its link version; a draft has none', () => {
    const url = links.urlOf(environmentId, invoice)!;
    expect(url).toMatch(/^https:\/\/pay\.example\.com\/i\/[A-Za-z0-9_-]{86}$/);
    expect(links.open(url.slice('https://pay.example.com/i/'.length))).toEqual({ environmentId, invoiceId: invoice.id, linkVersion: 2 });
    expect(links.urlOf(environmentId, { ...invoice, status: 'void' })).toBe(url);
    expect(links.urlOf(environmentId, { ...invoice, status: 'draft' })).toBeNull();
  });

  it('given a state stored before links existed, then link version 0', () => {
    const url = links.urlOf(environmentId, { id: invoice.id, status: 'booked' })!;
    expect(links.open(url.split('/i/')[1])?.linkVersion).toBe(0);
  });

  it('given production without HOSTED_LINK_SECRET, then it refuses to start', () => {
    expect(() => new HostedLinks(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' }))).toThrow(HOSTED_LINK_SECRET_REQUIRED);
  });
});
