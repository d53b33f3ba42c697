import { loadConfig } from './app-config';

describe('FAULT_KILL_AT (crash tests only)', () => {
  it('is off unless set', () => {
    expect(loadConfig({}).faultKillAt).toBeNull();
  });

  it('names one of the known points', () => {
    expect(loadConfig({ FAULT_KILL_AT: 'email-outcome' }).faultKillAt).toBe('email-outcome');
    expect(() => loadConfig({ FAULT_KILL_AT: 'anywhere' })).toThrow('FAULT_KILL_AT: unknown point "anywhere" (use email-outcome, webhook-disabled)');
  });

  it('is refused in production', () => {
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        FAULT_KILL_AT: 'email-outcome',
        JWT_SECRET: 'x'.repeat(32),
      }),
    ).toThrow(/FAULT_KILL_AT/);
  });
});
