import { loadConfig } from '../config/app-config';

describe('TEST_CLOCKS', () => {
  const production = { NODE_ENV: 'production', JWT_SECRET: 'a-real-secret' };

  it('is on by default outside production and off in production', () => {
    expect(loadConfig({}).testClocks).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).testClocks).toBe(true);
    expect(loadConfig({ ...production, TEST_CLOCKS: '' }).testClocks).toBe(false);
    expect(loadConfig(production).testClocks).toBe(false);
  });

  it('follows true and false wherever it is set', () => {
    expect(loadConfig({ TEST_CLOCKS: 'false' }).testClocks).toBe(false);
    expect(loadConfig({ ...production, TEST_CLOCKS: 'true' }).testClocks).toBe(true);
  });

  it.each(['TRUE', '1', 'yes', 'off'])('refuses %s at startup', (value) => {
    expect(() => loadConfig({ TEST_CLOCKS: value })).toThrow('TEST_CLOCKS must be true or false');
  });
});
