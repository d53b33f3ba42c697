/**
 * A startup failure whose cause is known: the message says what went wrong,
 * the hint what to do about it. main prints both.
 */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** The message of anything thrown: never empty, never "undefined". */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const nested = (error as { errors?: unknown }).errors;
    if (!error.message && Array.isArray(nested) && nested.length > 0) return [...new Set(nested.map(errorText))].join('; ');
    return error.message || (error as NodeJS.ErrnoException).code || error.name;
  }
  if (error === undefined || error === null) return 'unknown error (nothing was thrown with it)';
  return typeof error === 'object' ? JSON.stringify(error) : String(error);
}

export interface StartupFailure {
  /** What went wrong, from the error itself. */
  readonly cause: string;
  /** What to do about it. */
  readonly hint: string;
  /** The stack, for failures nobody anticipated. */
  readonly stack?: string;
}

/** Turns whatever stopped the startup into a cause and a hint for the 'startup failed' log line. */
export function describeStartupFailure(error: unknown, settings: { port?: number; host?: string } = {}): StartupFailure {
  const cause = errorText(error);
  if (error instanceof StartupError) return { cause, hint: error.hint };
  const failure = error as { code?: unknown; port?: unknown; syscall?: unknown };
  const port = typeof failure?.port === 'number' ? failure.port : settings.port;
  if (failure?.code === 'EADDRINUSE') {
    return {
      cause,
      hint: `port ${port} is already in use by another process (perhaps another npm start): stop it, or start this one on another port, e.g. PORT=${(port ?? 3000) + 1} npm start`,
    };
  }
  if (failure?.code === 'EACCES' && failure.syscall === 'listen') {
    return { cause, hint: `this user may not listen on port ${port} (ports below 1024 need privileges): set PORT to 1024 or above` };
  }
  if (failure?.code === 'EADDRNOTAVAIL')
    return { cause, hint: `HOST (${settings.host}) is not an address of this machine: leave HOST unset (0.0.0.0) or correct it` };
  if (/^JWT\b/.test(cause)) {
    return {
      cause,
      hint: 'NODE_ENV=production needs real token settings: set JWT_SECRET (HS256 shared secret), or JWT_PUBLIC_KEY or JWT_JWKS_URL (RS256/ES256); for local development leave NODE_ENV unset (a development secret is used)',
    };
  }
  if (/WEBHOOK_ENCRYPTION_KEY/.test(cause)) {
    return { cause, hint: 'set WEBHOOK_ENCRYPTION_KEY to 32 random bytes in base64 (openssl rand -base64 32); see libs/webhooks/README.md' };
  }
  const variable = /^([A-Z][A-Z0-9_]{2,})\b/.exec(cause)?.[1];
  if (variable) return { cause, hint: `correct the environment variable ${variable} (see Configuration in README.md)` };
  return {
    cause,
    hint: 'unexpected: the stack says where it happened; see Troubleshooting in README.md, and LOG_LEVEL=debug for more detail',
    stack: error instanceof Error ? error.stack : undefined,
  };
}
