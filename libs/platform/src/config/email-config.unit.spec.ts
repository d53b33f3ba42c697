import { loadConfig } from './app-config';

describe('e-mail configuration', () => {
  it('development without SMTP_URL: .eml files under <DATA_DIR>/mail', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/billing' }).email).toMatchObject({ transport: 'file', mailDir: '/tmp/billing/mail', smtpUrl: null });
  });

  it('production without SMTP_URL: nothing is sent', () => {
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' }).email.transport).toBe('none');
  });

  it('SMTP_URL and MAIL_FROM: sent over SMTP from that address; another scheme is refused', () => {
    const { email } = loadConfig({ SMTP_URL: 'smtps://user:pass@mail.example.com:465', MAIL_FROM: 'Billing <billing@example.com>' });
    expect(email).toMatchObject({ transport: 'smtp', smtpUrl: 'smtps://user:pass@mail.example.com:465', mailFrom: 'Billing <billing@example.com>' });
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL/);
  });
});
