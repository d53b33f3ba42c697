import { LoggerService } from '@nestjs/common';

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * What one logged text carries (a stack trace fits), and one line at most:
 * logged values can hold a client's input (an error naming a 100 000-character
 * member, a URL), and a line per request must not grow with it.
 */
export const MAX_LOGGED_TEXT = 4096;
export const MAX_LOG_LINE = 16 * 1024;
const SHORT_MEMBER = 256;
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One JSON object per line on stdout (what log shippers expect), or on stderr for a command whose stdout is its results. */
export class JsonLogger implements LoggerService {
  constructor(
    private readonly level: Level = 'info',
    private readonly stream: NodeJS.WritableStream = process.stdout,
  ) {}

  log(message: unknown, context?: string) {
    this.write('info', message, context);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest.find((r) => typeof r === 'string' && !r.includes('\n')) as string | undefined);
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('debug', message, context);
  }

  write(level: Level, message: unknown, context?: string) {
    if (ORDER[level] < ORDER[this.level]) return;
    const fields = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : { msg: String(message) };
    const entry = { level, time: new Date().toISOString(), context, ...fields };
    // A line no longer than one text's cap holds no text over it: only a longer one pays for the replacer (which
    // takes JSON.stringify off its fast path), so the request log's line per request costs what it did.
    let line = JSON.stringify(entry);
    if (line.length > MAX_LOGGED_TEXT) line = JSON.stringify(entry, truncateText);
    if (line.length > MAX_LOG_LINE) {
      // Still too long (many members, or long keys): the short members stay (level, msg, requestId…), with the length cut.
      const short = Object.entries(entry).filter(([key, value]) => key.length + (JSON.stringify(value, truncateText) ?? '').length <= SHORT_MEMBER);
      line = JSON.stringify({ ...Object.fromEntries(short.slice(0, 32)), truncated: line.length });
    }
    this.stream.write(`${line}\n`);
  }
}

function truncateText(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.length > MAX_LOGGED_TEXT ? `${value.slice(0, MAX_LOGGED_TEXT)}… (${value.length} characters)` : value;
}
