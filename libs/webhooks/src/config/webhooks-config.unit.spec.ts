import { loadConfig, WEBHOOK_ENCRYPTION_KEY_REQUIRED } from '@billing/platform';
import { webhooksConfigOf } from './webhooks-config';

describe('the webhooks module configuration', () => {
  it('refuses production without WEBHOOK_ENCRYPTION_KEY, and carries the key it runs with', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' };
    expect(() => webhooksConfigOf(loadConfig(production))).toThrow(WEBHOOK_ENCRYPTION_KEY_REQUIRED);
    const key = Buffer.alloc(32, 7);
    expect(webhooksConfigOf(loadConfig({ ...production, WEBHOOK_ENCRYPTION_KEY: key.toString('base64') }))).toMatchObject({
      encryptionKey: key,
      usesDevelopmentKey: false,
    });
  });
});
