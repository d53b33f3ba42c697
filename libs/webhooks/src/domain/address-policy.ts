/**
 * SSRF policy for notification URLs. Two checks, both pure:
 *
 * - `validateWebhookUrl` at subscribe time: shape of the URL, and an early
 *   rejection of hosts that can only be internal (IP literals, localhost).
 * - `isForbiddenAddress` at delivery time, on every address the host name
 *   resolved to (the dispatcher resolves, checks, then connects to that exact
 *   address, so DNS rebinding cannot swap in an internal one). This is the
 *   check that matters: a public name may resolve to 127.0.0.1.
 *
 * Addresses that embed an IPv4 address (IPv4-mapped, -compatible,
 * -translated, NAT64 64:ff9b::/96, 6to4) are judged by the embedded address,
 * since that is where the packets may end up.
 */
import { isIP } from 'node:net';
import { ValidationError } from '@billing/shared-kernel';

export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  /** Broadcast, 240/4 and other special-purpose ranges nobody hosts a webhook receiver on. */
  | 'reserved'
  | 'documentation';

/** The categories a developer's own machine or network may use when private networks are allowed. */
const PRIVATE_NETWORK_CATEGORIES: ReadonlySet<AddressCategory> = new Set(['loopback', 'private', 'link-local', 'cgnat']);

const IPV4_RANGES: ReadonlyArray<readonly [string, number, AddressCategory]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // includes 255.255.255.255 (broadcast)
];

function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

function classifyIPv4(value: number): AddressCategory {
  for (const [base, bits, category] of IPV4_RANGES) {
    const size = 2 ** (32 - bits);
    if (Math.floor(value / size) === Math.floor(ipv4ToNumber(base) / size)) return category;
  }
  return 'public';
}

/** Eight 16-bit groups of an address `isIPv6` accepted (so the syntax is already valid). */
function ipv6Groups(ip: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  const text = dotted ? ip.slice(0, dotted.index) + `${((+dotted[1] << 8) | +dotted[2]).toString(16)}:${((+dotted[3] << 8) | +dotted[4]).toString(16)}` : ip;
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map((group) => parseInt(group, 16));
}

function classifyIPv6(g: number[]): AddressCategory {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const embedded = (hi: number, lo: number) => classifyIPv4(hi * 65536 + lo);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded(g[6], g[7]); // ::ffff:a.b.c.d mapped
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return embedded(g[6], g[7]); // ::ffff:0:a.b.c.d translated
  if (zeroUpTo(6)) return embedded(g[6], g[7]); // ::a.b.c.d compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embedded(g[6], g[7]); // NAT64
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'private'; // local-use NAT64 (RFC 8215)
  if (g[0] === 0x2002) return embedded(g[1], g[2]); // 6to4
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if ((g[0] & 0xfff0) === 0x3ff0) return 'documentation'; // 3fff::/20
  if (g[0] === 0x2001 && g[1] < 0x0200) return 'reserved'; // 2001::/23 protocol assignments incl. Teredo
  if ((g[0] & 0xfe00) === 0xfc00) return 'private'; // unique local
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  // Only 2000::/3 is allocated as global unicast; everything else is special or unassigned.
  return (g[0] & 0xe000) === 0x2000 ? 'public' : 'reserved';
}

/** Accepts an IPv4 or IPv6 address, optionally in URL brackets and with a zone id. */
export function classifyAddress(ip: string): AddressCategory {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  switch (isIP(bare)) {
    case 4:
      return classifyIPv4(ipv4ToNumber(bare));
    case 6:
      return classifyIPv6(ipv6Groups(bare));
    default:
      throw new RangeError(`not an IP address: ${ip}`);
  }
}

export interface AddressPolicyOptions {
  /** Local development: loopback, private, link-local and CGNAT become allowed; the rest stays forbidden. */
  readonly allowPrivateNetworks: boolean;
}

/** Fails closed: anything that is not an IP address is forbidden. */
export function isForbiddenAddress(ip: string, { allowPrivateNetworks }: AddressPolicyOptions): boolean {
  let category: AddressCategory;
  try {
    category = classifyAddress(ip);
  } catch {
    return true;
  }
  if (category === 'public') return false;
  return !(allowPrivateNetworks && PRIVATE_NETWORK_CATEGORIES.has(category));
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** A URL that passed `validateWebhookUrl`; only that function produces one. */
export type WebhookUrl = string & { readonly __brand: 'WebhookUrl' };

export interface WebhookUrlOptions {
  /** Permit plain http, but only to a loopback host (a receiver on the developer's machine). */
  readonly allowInsecureLoopback: boolean;
  readonly allowPrivateNetworks: boolean;
}

function isLoopbackName(hostname: string): boolean {
  const name = hostname.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost'); // RFC 6761: always loopback
}

/** Returns the WHATWG-normalised URL, or throws a ValidationError at `/url`. */
export function validateWebhookUrl(url: string, options: WebhookUrlOptions): WebhookUrl {
  const fail = (detail: string, code = 'invalid-url') => ValidationError.at('/url', detail, code);
  if (typeof url !== 'string' || url.length === 0) throw fail('must be a URL');
  if (url.length > MAX_WEBHOOK_URL_LENGTH) throw fail(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail('must be an absolute URL');
  }
  // The WHATWG parser has already turned 2130706433 or 0x7f.1 into 127.0.0.1 here.
  const host = parsed.hostname;
  const ipLiteral = isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0;
  const loopback = isLoopbackName(host) || (ipLiteral && classifyAddress(host) === 'loopback');
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && options.allowInsecureLoopback && loopback)) {
    throw fail('must use https', 'insecure-url');
  }
  if (parsed.username || parsed.password) throw fail('must not contain a user name or password');
  // Fragments never reach the receiver; accepting one would suggest it does.
  if (parsed.href.includes('#')) throw fail('must not contain a fragment');
  if (!host) throw fail('must have a host');
  // Port 0 names no service: the connect can only fail (or, on some stacks, reach something unintended).
  if (parsed.port === '0') throw fail('must not use port 0');
  if (parsed.href.length > MAX_WEBHOOK_URL_LENGTH) throw fail(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // Early, friendlier rejection of hosts that can only be internal; delivery re-checks every resolved address.
  const forbidden = ipLiteral ? isForbiddenAddress(host, options) : loopback && !options.allowPrivateNetworks;
  if (forbidden) throw fail('must not point to a private, loopback or reserved address', 'forbidden-address');
  return parsed.href as WebhookUrl;
}
