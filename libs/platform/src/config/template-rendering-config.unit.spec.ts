import { loadConfig } from './app-config';

describe('TEMPLATE_RENDER_* configuration', () => {
  it('issue 20 #17: render threads, time, heap and queue bound come from the configuration, with defaults', () => {
    expect(loadConfig({}).templateRendering).toEqual({ threads: 1, timeoutMs: 2_000, memoryMb: 256, queuePerEnvironment: 20 });
    expect(
      loadConfig({ TEMPLATE_RENDER_THREADS: '4', TEMPLATE_RENDER_TIMEOUT_MS: '500', TEMPLATE_RENDER_MEMORY_MB: '64', TEMPLATE_RENDER_QUEUE: '3' })
        .templateRendering,
    ).toEqual({
      threads: 4,
      timeoutMs: 500,
      memoryMb: 64,
      queuePerEnvironment: 3,
    });
  });

  it.each([
    ['TEMPLATE_RENDER_THREADS', '0', 'must be from 1 to 4'],
    ['TEMPLATE_RENDER_THREADS', '5', 'must be from 1 to 4'],
    ['TEMPLATE_RENDER_TIMEOUT_MS', '0', 'must be at least 1'],
    ['TEMPLATE_RENDER_MEMORY_MB', '32', 'must be from 64 to 4096'],
    ['TEMPLATE_RENDER_QUEUE', 'many', 'must be a non-negative integer'],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(`${name} ${message}`);
  });
});
