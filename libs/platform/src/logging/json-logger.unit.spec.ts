import { PassThrough } from 'node:stream';
import { JsonLogger, MAX_LOG_LINE, MAX_LOGGED_TEXT } from './json-logger';

function logged(write: (logger: JsonLogger) => void): string[] {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  write(new JsonLogger('info', stream));
  return chunks.join('').split('\n').filter(Boolean);
}

describe('a log line carries bounded text', () => {
  it('given an error whose message and stack hold a 1 MB input, then one line under the cap, each text cut with its length', () => {
    const key = 'k'.repeat(1_000_000);
    const [line] = logged((logger) =>
      logger.error({ msg: 'unhandled error', requestId: 'r-1', error: { message: `too large: /^${key} /`, stack: `SyntaxError: /^${key} /\n    at x` } }),
    );
    expect(line.length).toBeLessThanOrEqual(MAX_LOG_LINE);
    const entry = JSON.parse(line);
    expect(entry).toMatchObject({ level: 'error', msg: 'unhandled error', requestId: 'r-1' });
    expect(entry.error.message).toHaveLength(MAX_LOGGED_TEXT + ' (1000015 characters)'.length + 1);
  });

  it('given many long members or a long key, then the short members stay and the line says how long it was', () => {
    const members = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`m${index}`, 'x'.repeat(MAX_LOGGED_TEXT)]));
    for (const fields of [members, { ['k'.repeat(100_000)]: 1 }]) {
      const [line] = logged((logger) => logger.write('warn', { msg: 'request', requestId: 'r-2', ...fields }));
      expect(line.length).toBeLessThanOrEqual(MAX_LOG_LINE);
      expect(JSON.parse(line)).toEqual({ level: 'warn', time: expect.any(String), msg: 'request', requestId: 'r-2', truncated: expect.any(Number) });
    }
  });

  it('given ordinary fields, then the line is as it always was', () => {
    const [line] = logged((logger) => logger.write('info', { msg: 'request', status: 200 }, 'Http'));
    expect(JSON.parse(line)).toEqual({ level: 'info', time: expect.any(String), context: 'Http', msg: 'request', status: 200 });
  });
});
