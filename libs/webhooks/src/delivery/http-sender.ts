/**
 * The HTTP client of the dispatcher, hardened against SSRF:
 *
 * - the host name is resolved with dns.lookup (every address) inside the
 *   socket's own `lookup` hook, forbidden addresses are dropped there, and the
 *   socket can only connect to an address that passed the check: no window
 *   between checking and connecting (DNS rebinding);
 * - IP-literal hosts (which never go through `lookup`) are checked up front;
 * - the peer address is checked again when the TCP connection is up, before
 *   TLS or any byte of the request;
 * - redirects are never followed; one deadline covers connect, TLS, request
 *   and response; the response body is read (to free the socket) up to 64 KiB
 *   and thrown away.
 *
 * A destination the policy refuses is reported as `refused` (no byte was
 * sent, and retrying cannot help while the policy and the name's answer stay
 * the same), with a reason that never names the addresses: the URL belongs to
 * the tenant, and echoing what its host resolved to from inside our network
 * would turn the deliveries list into a resolver for internal names.
 */
import { lookup as dnsLookup } from 'node:dns';
import { Agent as HttpAgent, IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, LookupFunction, Socket } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { classifyAddress, isForbiddenAddress } from '../domain';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name to every address (dns.lookup, so /etc/hosts applies as for any client). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

export interface SenderPolicy {
  readonly allowPrivateNetworks: boolean;
  readonly allowInsecureHttp: boolean;
}

/** The recorded reason of a delivery refused by the address policy (the same whatever the addresses were). */
export const FORBIDDEN_ADDRESS_REASON = 'the destination address is not allowed';

/** The sender will not send to this destination (scheme, credentials, port or address); nothing was sent. */
export class DestinationRefusedError extends Error {}

/**
 * Every address of `host` is forbidden by the policy. The message is the
 * generic reason; `addresses` stays in memory (tests, debugging) and is never
 * recorded.
 */
export class ForbiddenAddressError extends DestinationRefusedError {
  readonly code = 'EFORBIDDENADDRESS';
  constructor(
    readonly host: string,
    readonly addresses: readonly string[],
  ) {
    super(FORBIDDEN_ADDRESS_REASON);
  }
}

function category(address: string): string {
  try {
    return classifyAddress(address);
  } catch {
    return 'not an address';
  }
}

/**
 * A `lookup` for net/tls/http that resolves, then hands the socket only the
 * addresses the policy allows. Fails with ForbiddenAddressError when none is.
 */
export function guardedLookup(policy: Pick<SenderPolicy, 'allowPrivateNetworks'>, resolve: Resolver = systemResolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const cb = typeof options === 'function' ? (options as typeof callback) : callback;
    const opts = typeof options === 'function' ? {} : (options ?? {});
    resolve(hostname).then(
      (resolved) => {
        const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family) || 0;
        const candidates = resolved.filter((a) => family === 0 || a.family === family);
        const allowed = candidates.filter((a) => !isForbiddenAddress(a.address, policy));
        if (allowed.length === 0) {
          cb(
            new ForbiddenAddressError(
              hostname,
              candidates.map((a) => a.address),
            ),
          );
        } else if (opts.all) {
          cb(null, allowed);
        } else {
          cb(null, allowed[0].address, allowed[0].family);
        }
      },
      (error: unknown) => cb(error),
    );
  }) as unknown as LookupFunction;
}

export interface SendRequest {
  readonly url: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface SendResult {
  /** The response status, or null when no response arrived (refused, timed out, forbidden). */
  readonly statusCode: number | null;
  readonly ok: boolean;
  /**
   * The policy refused the destination (DestinationRefusedError): nothing was
   * sent, and the same attempt would be refused again.
   */
  readonly refused: boolean;
  readonly error: string | null;
  readonly retryAfter: string | undefined;
  readonly durationMs: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookSenderOptions extends SenderPolicy {
  readonly timeoutMs: number;
  /** Extra trusted CAs (PEM), added to Node's defaults. */
  readonly extraCaPem?: string | null;
  readonly resolve?: Resolver;
}

export class WebhookSender {
  private readonly httpsAgent: HttpsAgent;
  private readonly httpAgent: HttpAgent;
  private readonly lookup: LookupFunction;

  constructor(private readonly options: WebhookSenderOptions) {
    this.lookup = guardedLookup(options, options.resolve);
    this.httpsAgent = new HttpsAgent({
      keepAlive: true,
      maxSockets: 16,
      // Built once: parsing the root store on every connection costs milliseconds of CPU each.
      secureContext: options.extraCaPem ? createSecureContext({ ca: [...rootCertificates, options.extraCaPem] }) : undefined,
    });
    this.httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
  }

  /**
   * The checks that can be made before connecting: scheme, credentials, port,
   * and the address of an IP-literal host. Throws a DestinationRefusedError
   * (ForbiddenAddressError for the address).
   */
  assertSendable(url: URL): void {
    const insecureOk = url.protocol === 'http:' && this.options.allowInsecureHttp && isLoopbackHost(url.hostname);
    if (url.protocol !== 'https:' && !insecureOk) throw new DestinationRefusedError(`refused: ${url.protocol} is not allowed (https only)`);
    if (url.username || url.password) throw new DestinationRefusedError('refused: credentials in the URL');
    if (url.port === '0') throw new DestinationRefusedError('refused: port 0');
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(literal) && isForbiddenAddress(literal, this.options)) throw new ForbiddenAddressError(literal, [literal]);
  }

  async send(request: SendRequest): Promise<SendResult> {
    const started = process.hrtime.bigint();
    const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
    const fail = (error: string, statusCode: number | null = null, retryAfter?: string): SendResult => ({
      statusCode,
      ok: false,
      refused: false,
      error,
      retryAfter,
      durationMs: elapsed(),
    });
    const refuse = (error: DestinationRefusedError): SendResult => ({ ...fail(error.message), refused: true });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return refuse(new DestinationRefusedError('refused: not an absolute URL'));
    }
    try {
      this.assertSendable(url);
    } catch (error) {
      if (error instanceof DestinationRefusedError) return refuse(error);
      throw error;
    }
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const secure = url.protocol === 'https:';
      const req = (secure ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error(`timed out after ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      req.on('socket', (socket: Socket) => this.guardPeer(socket, url));
      req.on('error', (error: NodeJS.ErrnoException) => {
        // From the guarded lookup (every resolved address forbidden) or the peer check.
        if (error instanceof DestinationRefusedError) return finish(refuse(error));
        const message = error.message.startsWith('timed out')
          ? error.message
          : `connection failed: ${error.code ?? error.message}${error.code && error.message ? ` (${error.message})` : ''}`;
        finish(fail(message));
      });
      req.on('response', (response: IncomingMessage) => {
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) response.destroy();
        });
        const done = () => {
          if (timedOut) return finish(fail(`timed out after ${this.options.timeoutMs} ms`, response.statusCode ?? null));
          finish(answered(response, fail, elapsed()));
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', () => done());
      });
      req.end(request.body);
    });
  }

  /** Defence in depth: the peer must be allowed before TLS or the request starts. */
  private guardPeer(socket: Socket, url: URL): void {
    const check = () => {
      const peer = socket.remoteAddress;
      if (peer && isForbiddenAddress(peer, this.options)) socket.destroy(new ForbiddenAddressError(url.hostname, [peer]));
    };
    if (socket.remoteAddress) check();
    else socket.once('connect', check);
  }

  close(): void {
    this.httpsAgent.destroy();
    this.httpAgent.destroy();
  }
}

/** What the receiver's answer means: 2xx delivered; a redirect is never followed; anything else failed. */
function answered(
  response: IncomingMessage,
  fail: (error: string, statusCode: number | null, retryAfter?: string) => SendResult,
  durationMs: number,
): SendResult {
  const status = response.statusCode ?? 0;
  const retryAfter = header(response.headers['retry-after']);
  if (status >= 200 && status < 300) return { statusCode: status, ok: true, refused: false, error: null, retryAfter, durationMs };
  if (status >= 300 && status < 400) return fail(`redirect not followed (${status})`, status, retryAfter);
  return fail(`receiver answered ${status}`, status, retryAfter);
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  return isIP(bare) !== 0 && category(bare) === 'loopback';
}
