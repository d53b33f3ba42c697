import { FORBIDDEN_ADDRESS_REASON, ForbiddenAddressError, guardedLookup, Resolver, SendResult, WebhookSender } from '@billing/webhooks';
import { createSelfSignedCertificate, Receiver, TestCertificate } from './webhook-test-kit';

/** The dispatcher's connect check, directly: what the socket may connect to. */
describe('WebhookSender SSRF guard', () => {
  let certificate: TestCertificate;
  let receiver: Receiver;
  const senders: WebhookSender[] = [];
  const message = { body: '{"id":"x"}', headers: { 'content-type': 'application/json' } };

  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    receiver = await new Receiver(certificate).start();
  });
  afterAll(async () => {
    for (const sender of senders) sender.close();
    await receiver.stop();
    certificate.remove();
  });

  function sender(allowPrivateNetworks: boolean, resolve?: Resolver): WebhookSender {
    const created = new WebhookSender({ allowPrivateNetworks, allowInsecureHttp: false, timeoutMs: 2000, extraCaPem: certificate.cert, resolve });
    senders.push(created);
    return created;
  }

  /** Refused by the address policy: final, generic reason, and no trace of what the host resolved to. */
  function expectRefusedAddress(result: SendResult, ...addresses: string[]) {
    expect(result).toMatchObject({ ok: false, refused: true, statusCode: null, error: FORBIDDEN_ADDRESS_REASON });
    expect(result.error).toBe('the destination address is not allowed');
    for (const address of addresses) expect(result.error).not.toContain(address);
    expect(result.error).not.toMatch(/\d+\.\d+\.\d+\.\d+|::|loopback|private|link-local/);
  }

  function thrownBy(check: () => void): unknown {
    try {
      check();
    } catch (error) {
      return error;
    }
    throw new Error('nothing was thrown');
  }

  it.each([
    ['https://127.0.0.1:PORT/', '127.0.0.1'],
    ['https://2130706433:PORT/', '127.0.0.1'],
    ['https://0x7f.1:PORT/', '127.0.0.1'],
    ['https://[::1]:PORT/', '::1'],
    ['https://[::ffff:127.0.0.1]:PORT/', '::ffff:7f00:1'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
  ])('refuses the IP literal %s before connecting', async (template, address) => {
    const before = receiver.requests.length;
    const url = template.replace('PORT', String(receiver.port));
    expectRefusedAddress(await sender(false).send({ url, ...message }), address);
    expect(receiver.requests.length).toBe(before);
    // What was checked is known in memory, never in the recorded reason.
    const error = thrownBy(() => sender(false).assertSendable(new URL(url)));
    expect(error).toBeInstanceOf(ForbiddenAddressError);
    expect((error as ForbiddenAddressError).addresses).toEqual([address]);
  });

  it('refuses a host name that resolves to loopback (localhost) at connect time, without naming the address', async () => {
    const result = await sender(false).send({ url: receiver.url(), ...message });
    expectRefusedAddress(result, '127.0.0.1', '::1');
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a public-looking name that resolves to an internal address (DNS rebinding), without naming the address', async () => {
    const rebinding: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await sender(false, rebinding).send({ url: `https://rebind.test:${receiver.port}/`, ...message });
    expectRefusedAddress(result, '127.0.0.1');
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses port 0 before resolving or connecting', async () => {
    let resolved = false;
    const spy: Resolver = async () => {
      resolved = true;
      return [{ address: '93.184.215.14', family: 4 }];
    };
    const result = await sender(true, spy).send({ url: 'https://example.com:0/hooks', ...message });
    expect(result).toMatchObject({ ok: false, refused: true, statusCode: null, error: 'refused: port 0' });
    expect(resolved).toBe(false);
  });

  it('connects only to the allowed addresses when a name resolves to a mix', async () => {
    const lookup = guardedLookup({ allowPrivateNetworks: false }, async () => [
      { address: '127.0.0.1', family: 4 },
      { address: '93.184.215.14', family: 4 },
      { address: '::1', family: 6 },
    ]);
    const all = await new Promise<unknown>((resolve, reject) =>
      (lookup as any)('mixed.test', { all: true }, (error: Error | null, addresses: unknown) => (error ? reject(error) : resolve(addresses))),
    );
    expect(all).toEqual([{ address: '93.184.215.14', family: 4 }]);
    const one = await new Promise<unknown[]>((resolve) => (lookup as any)('mixed.test', {}, (...args: unknown[]) => resolve(args)));
    expect(one).toEqual([null, '93.184.215.14', 4]);
    const refused = await new Promise<unknown>((resolve) => (lookup as any)('mixed.test', { family: 6 }, (error: unknown) => resolve(error)));
    expect(refused).toBeInstanceOf(ForbiddenAddressError);
    expect(refused).toMatchObject({ host: 'mixed.test', addresses: ['::1'], message: FORBIDDEN_ADDRESS_REASON });
  });

  it('with private networks allowed, delivers to the local receiver (also through a resolved name)', async () => {
    const viaName = await sender(true, async () => [{ address: '127.0.0.1', family: 4 }]).send({ url: `https://rebind.test:${receiver.port}/x`, ...message });
    expect(viaName).toMatchObject({ ok: true, refused: false, statusCode: 200, error: null });
    const viaLocalhost = await sender(true).send({ url: receiver.url('/y'), ...message });
    expect(viaLocalhost).toMatchObject({ ok: true, statusCode: 200 });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/x', '/y']);
  });

  it('never sends plain http unless allowed, and then only to loopback', async () => {
    const strict = await sender(true).send({ url: `http://127.0.0.1:${receiver.port}/`, ...message });
    expect(strict).toMatchObject({ refused: true, error: 'refused: http: is not allowed (https only)' });
    const dev = new WebhookSender({ allowPrivateNetworks: true, allowInsecureHttp: true, timeoutMs: 2000 });
    senders.push(dev);
    expect(await dev.send({ url: 'http://example.com/', ...message })).toMatchObject({ refused: true, error: 'refused: http: is not allowed (https only)' });
  });

  it('does not trust a certificate outside the configured CAs', async () => {
    const untrusting = new WebhookSender({ allowPrivateNetworks: true, allowInsecureHttp: false, timeoutMs: 2000 });
    senders.push(untrusting);
    const result = await untrusting.send({ url: receiver.url(), ...message });
    expect(result.ok).toBe(false);
    expect(result.refused).toBe(false); // a connection failure, retried like any other
    expect(result.error).toMatch(/^connection failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/);
  });
});
