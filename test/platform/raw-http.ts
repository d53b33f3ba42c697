import { connect } from 'node:net';

export interface RawExchange {
  /** Everything the server wrote before closing (or before `waitMs` ran out). */
  readonly response: string;
  readonly status: number | null;
  readonly closed: boolean;
  readonly body: any;
}

/**
 * Writes raw bytes to the service (for what fetch refuses to send: broken
 * encodings, unfinished bodies, slow headers) and reads until the server
 * closes the connection or `waitMs` passes.
 */
export function rawHttp(baseUrl: string, payload: string | Buffer, waitMs = 5000): Promise<RawExchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      const response = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(response)?.[1];
      const [, text = ''] = response.split('\r\n\r\n');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep text */
      }
      socket.destroy();
      resolve({ response, status: status ? Number(status) : null, closed, body });
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.write(payload);
  });
}
