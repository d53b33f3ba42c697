/**
 * The benchmark's child processes: started here, remembered, and all stopped
 * at the end, also when the run fails or is interrupted.
 */
import { ChildProcess, spawn } from 'node:child_process';

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  /** The last lines of its stdout and stderr, for error messages. */
  readonly tail: string[];
  /** Resolves with the exit code (or the signal's name) once it has exited. */
  readonly exited: Promise<number | string>;
}

const running = new Set<Child>();
const TAIL_LINES = 40;

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Called with every complete stdout line. */
  readonly onLine?: (line: string) => void;
}

export function startChild(name: string, command: string, args: readonly string[], options: StartOptions = {}): Child {
  const child = spawn(command, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };
  const lines = (stream: NodeJS.ReadableStream | null, onLine?: (line: string) => void) => {
    let buffered = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        remember(line);
        onLine?.(line);
        newline = buffered.indexOf('\n');
      }
    });
  };
  lines(child.stdout, options.onLine);
  lines(child.stderr);
  const exited = new Promise<number | string>((resolve) => {
    child.on('error', (error) => {
      remember(`spawn failed: ${error.message}`);
      resolve(`spawn error: ${error.message}`);
    });
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const entry: Child = { name, process: child, tail, exited };
  running.add(entry);
  void exited.then(() => running.delete(entry));
  return entry;
}

/** Resolves with the first stdout line that parses as JSON (servers print their port so). */
export function firstJsonLine<T>(child: Child, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${child.name} printed nothing within ${timeoutMs} ms:\n${child.tail.join('\n')}`)), timeoutMs);
    const onData = () => {
      for (const line of child.tail) {
        try {
          const parsed = JSON.parse(line) as T;
          clearTimeout(timer);
          child.process.stdout?.off('data', onData);
          resolve(parsed);
          return;
        } catch {
          /* not that line */
        }
      }
    };
    child.process.stdout?.on('data', () => setImmediate(onData));
    void child.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${child.name} exited (${code}) before it was ready:\n${child.tail.join('\n')}`));
    });
  });
}

/** Waits for the exit, rejecting when it takes longer than timeoutMs (the process is killed then). */
export async function waitExit(child: Child, timeoutMs: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.process.kill('SIGKILL');
      reject(new Error(`${child.name} did not finish within ${Math.round(timeoutMs / 1000)} s (killed):\n${child.tail.join('\n')}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([child.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM, then SIGKILL after graceMs. */
export async function stopChild(child: Child, graceMs = 10_000): Promise<void> {
  if (!running.has(child)) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child, 5000)));
}

// Last resort for every way out that still runs JavaScript.
process.on('exit', () => {
  for (const child of running) child.process.kill('SIGKILL');
});
