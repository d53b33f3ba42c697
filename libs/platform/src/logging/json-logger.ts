import { LoggerService } from '@nestjs/common';

type Level = 'debug' | 'info' | 'warn' | 'error';
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
    this.stream.write(`${JSON.stringify({ level, time: new Date().toISOString(), context, ...fields })}\n`);
  }
}
