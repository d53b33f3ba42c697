import { DEVELOPMENT_HOSTED_LINK_SECRET, loadConfig } from './app-config';

describe('hosted pages configuration', () => {
  const production = { NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' };

  it('defaults to http://localhost:<PORT>, the development secret outside production and 60 requests a minute', () => {
    expect(loadConfig({ PORT: '8080' }).hostedPages).toEqual({
      publicBaseUrl: 'http://localhost:8080',
      linkSecret: DEVELOPMENT_HOSTED_LINK_SECRET,
      rateLimitPerMinute: 60,
    });
  });

  it('takes PUBLIC_BASE_URL without its trailing slash, HOSTED_LINK_SECRET and HOSTED_PAGE_RATE_LIMIT', () => {
    const secret = 'x'.repeat(32);
    const config = loadConfig({ ...production, PUBLIC_BASE_URL: 'https://billing.example.com/pay/', HOSTED_LINK_SECRET: secret, HOSTED_PAGE_RATE_LIMIT: '10' });
    expect(config.hostedPages).toEqual({ publicBaseUrl: 'https://billing.example.com/pay', linkSecret: secret, rateLimitPerMinute: 10 });
  });

  it('has no secret in production when unset (the service then refuses to start), and refuses a short one, a bad URL or limit', () => {
    expect(loadConfig(production).hostedPages.linkSecret).toBeNull();
    expect(() => loadConfig({ HOSTED_LINK_SECRET: 'short' })).toThrow('HOSTED_LINK_SECRET: must be at least 32 characters');
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'not a url' })).toThrow('PUBLIC_BASE_URL: not a URL');
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'ftp://example.com' })).toThrow('must be an http or https URL');
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'https://example.com/?a=1' })).toThrow('must have no query or fragment');
    expect(() => loadConfig({ HOSTED_PAGE_RATE_LIMIT: '0' })).toThrow('HOSTED_PAGE_RATE_LIMIT must be at least 1');
  });
});
