import { inspect } from 'node:util';
import { loadConfig } from './app-config';
import { DEVELOPMENT_WEBHOOK_ENCRYPTION_KEY } from './webhooks-config';

describe('WEBHOOK_* configuration', () => {
  const key = Buffer.alloc(32, 7).toString('base64');

  it('is read by loadConfig, with the development key outside production', () => {
    const { webhooks } = loadConfig({ WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_DISPATCHER_ENABLED: 'false' });
    expect(webhooks).toMatchObject({ usesDevelopmentKey: true, timeoutMs: 500, dispatcherEnabled: false, allowPrivateNetworks: false });
    expect(webhooks.encryptionKey).toEqual(Buffer.from(DEVELOPMENT_WEBHOOK_ENCRYPTION_KEY, 'base64'));
    expect(loadConfig({ WEBHOOK_ENCRYPTION_KEY: key }).webhooks).toMatchObject({ usesDevelopmentKey: false, encryptionKey: Buffer.alloc(32, 7) });
  });

  it('has no key when unset in production (the webhooks module refuses to start), and never shows the key', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' };
    expect(loadConfig(production).webhooks.encryptionKey).toBeNull();
    const config = loadConfig({ ...production, WEBHOOK_ENCRYPTION_KEY: key });
    for (const shown of [JSON.stringify(config), inspect(config, { depth: 10 })]) expect(shown).not.toContain('encryptionKey');
  });

  it.each([
    ['WEBHOOK_ENCRYPTION_KEY', 'c2hvcnQ=', 'must be the base64 encoding of exactly 32 bytes'],
    ['WEBHOOK_TIMEOUT_MS', '0', 'must be a positive integer'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes', 'must be true or false'],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
