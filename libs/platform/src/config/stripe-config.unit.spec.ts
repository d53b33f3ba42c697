import { loadConfig } from './app-config';

describe('Stripe client configuration', () => {
  it('defaults to api.stripe.com (no override) and a 20 s time limit', () => {
    expect(loadConfig({}).stripe).toEqual({ apiBase: null, timeoutMs: 20_000 });
  });

  it('turns STRIPE_API_BASE into the client host, port and protocol options', () => {
    expect(loadConfig({ STRIPE_API_BASE: 'http://127.0.0.1:12111', STRIPE_TIMEOUT_MS: '400' }).stripe).toEqual({
      apiBase: { host: '127.0.0.1', port: 12111, protocol: 'http' },
      timeoutMs: 400,
    });
    expect(loadConfig({ STRIPE_API_BASE: 'https://stripe-mock.internal/' }).stripe.apiBase).toEqual({
      host: 'stripe-mock.internal',
      port: 443,
      protocol: 'https',
    });
  });

  it('refuses what the client could not use: not a URL, another scheme, a path, a zero time limit', () => {
    expect(() => loadConfig({ STRIPE_API_BASE: 'localhost' })).toThrow('STRIPE_API_BASE: not a URL');
    expect(() => loadConfig({ STRIPE_API_BASE: 'ftp://example.com' })).toThrow('must be an http or https URL');
    expect(() => loadConfig({ STRIPE_API_BASE: 'http://example.com/v1' })).toThrow('must be scheme, host and port only');
    expect(() => loadConfig({ STRIPE_TIMEOUT_MS: '0' })).toThrow('STRIPE_TIMEOUT_MS');
  });
});
