import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  NotificationPayload,
  decodeSignatureKey,
  generateSignatureKey,
  signNotification,
  standardWebhookHeaders,
  verifyNotificationSignature,
} from './signing';

const key = generateSignatureKey(Buffer.alloc(32, 7));
const nowSeconds = () => Math.floor(Date.now() / 1000);
const payload = (overrides: Partial<NotificationPayload> = {}): NotificationPayload => ({
  id: '0b8a3c1e-6a55-4b8e-9d1e-0d5b1f2a3c4d',
  type: 'invoice.created',
  environmentId: '5b3c6f0e-2f1d-4a7e-8b9c-1d2e3f4a5b6c',
  occurredAt: '2024-07-01T10:00:00.000Z',
  version: '2022-03',
  data: { id: 'inv-1', memo: 'Ünïcödé "quoted" \u2028 </script>', totalDue: 12345, nested: { signature: 'x' } },
  timestamp: nowSeconds(),
  ...overrides,
});

/** The README recipe, using nothing but node:crypto. */
function receiverVerifies(raw: string, signatureKey: string): boolean {
  const m = /,"signature":"([0-9a-f]{64})"\}$/.exec(raw);
  if (!m) return false;
  const signed = raw.slice(0, m.index) + '}';
  const { id, timestamp } = JSON.parse(signed);
  const hmacKey = Buffer.from(signatureKey.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', hmacKey).update(`${id}.${timestamp}.${signed}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[1], 'hex'));
}

describe('signature keys', () => {
  it('are whsec_ + base64 of the random bytes and decode back to them', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));
    const secret = generateSignatureKey(bytes);
    expect(secret).toBe(`whsec_${bytes.toString('base64')}`);
    expect(decodeSignatureKey(secret).equals(bytes)).toBe(true);
  });

  it.each([16, 23, 65])('refuse %p random bytes', (n) => {
    expect(() => generateSignatureKey(Buffer.alloc(n))).toThrow(RangeError);
  });

  it.each(['', 'whsec_', 'secret', `whsk_${Buffer.alloc(32).toString('base64')}`, 'whsec_***', `whsec_${Buffer.alloc(8).toString('base64')}`])(
    'reject malformed secret %p',
    (secret) => {
      expect(() => decodeSignatureKey(secret)).toThrow(RangeError);
    },
  );
});

describe('signNotification', () => {
  it('puts the members in the documented order with signature last', () => {
    const { body, signature } = signNotification(payload({ timestamp: 1700000000 }), key);
    expect(Object.keys(JSON.parse(body))).toEqual(['id', 'type', 'environmentId', 'occurredAt', 'version', 'data', 'timestamp', 'signature']);
    expect(JSON.parse(body).signature).toBe(signature);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it('signs id.timestamp.bodyWithoutSignature with the decoded key, hex', () => {
    const p = payload({ timestamp: 1700000000 });
    const { signature } = signNotification(p, key);
    const signed = JSON.stringify({ ...p });
    const expected = createHmac('sha256', decodeSignatureKey(key)).update(`${p.id}.1700000000.${signed}`).digest('hex');
    expect(signature).toBe(expected);
  });

  it('drops members that are not part of the payload', () => {
    const extra = { ...payload(), signature: 'forged', extra: 1 } as unknown as NotificationPayload;
    const body = JSON.parse(signNotification(extra, key).body);
    expect(body.extra).toBeUndefined();
    expect(body.signature).not.toBe('forged');
  });

  it.each([1.5, -1, Number.NaN])('refuses timestamp %p', (timestamp) => {
    expect(() => signNotification(payload({ timestamp }), key)).toThrow(RangeError);
  });
});

describe('verifying the signature member', () => {
  it('the documented recipe (node:crypto only) accepts our body', () => {
    const { body } = signNotification(payload(), key);
    expect(receiverVerifies(body, key)).toBe(true);
    expect(verifyNotificationSignature(body, key)).toBe(true);
  });

  it('verifies within the tolerance window only when a clock is given', () => {
    const { body } = signNotification(payload({ timestamp: 1000 }), key);
    expect(verifyNotificationSignature(body, key)).toBe(true);
    expect(verifyNotificationSignature(body, key, { nowSeconds: 1300 })).toBe(true);
    expect(verifyNotificationSignature(body, key, { nowSeconds: 1301 })).toBe(false);
    expect(verifyNotificationSignature(body, key, { nowSeconds: 700 })).toBe(true);
    expect(verifyNotificationSignature(body, key, { nowSeconds: 1010, toleranceSeconds: 5 })).toBe(false);
  });

  it.each([
    ['data', (b: string) => b.replace('12345', '12346')],
    ['timestamp', (b: string) => b.replace(/"timestamp":(\d+)/, (_, t) => `"timestamp":${Number(t) + 1}`)],
    ['id', (b: string) => b.replace('"id":"0b8a', '"id":"1b8a')],
    ['signature', (b: string) => b.replace(/"signature":"(.)/, (_, c) => `"signature":"${c === 'a' ? 'b' : 'a'}`)],
    ['whitespace', (b: string) => `${b}\n`],
    ['missing signature', (b: string) => b.replace(/,"signature":"[0-9a-f]+"/, '')],
  ])('rejects a tampered %s', (_, tamper) => {
    const { body } = signNotification(payload(), key);
    const tampered = tamper(body);
    expect(tampered).not.toBe(body);
    expect(verifyNotificationSignature(tampered, key)).toBe(false);
    expect(receiverVerifies(tampered, key)).toBe(false);
  });

  it('rejects another key', () => {
    const { body } = signNotification(payload(), key);
    expect(verifyNotificationSignature(body, generateSignatureKey(Buffer.alloc(32, 8)))).toBe(false);
  });

  it.each([
    `[1,"signature":"${'a'.repeat(64)}"}`,
    `{"id":1,"timestamp":1,"signature":"${'a'.repeat(64)}"}`,
    `{"id":"x","timestamp":"1","signature":"${'a'.repeat(64)}"}`,
    `null,"signature":"${'a'.repeat(64)}"}`,
  ])('rejects a malformed body %p', (raw) => {
    expect(verifyNotificationSignature(raw, key)).toBe(false);
  });
});

describe('standard webhooks headers', () => {
  it('verify with the standardwebhooks library, over the body that is sent', () => {
    const p = payload();
    const { body } = signNotification(p, key);
    const headers = standardWebhookHeaders(p.id, p.timestamp, body, key);
    expect(headers['webhook-id']).toBe(p.id);
    expect(headers['webhook-timestamp']).toBe(String(p.timestamp));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(key).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it.each([
    ['body', (h: Record<string, string>, b: string) => [h, b.replace('12345', '12346')] as const],
    ['timestamp', (h: Record<string, string>, b: string) => [{ ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) }, b] as const],
    ['id', (h: Record<string, string>, b: string) => [{ ...h, 'webhook-id': `${h['webhook-id']}x` }, b] as const],
  ])('fail verification when the %s is tampered', (_, tamper) => {
    const p = payload();
    const { body } = signNotification(p, key);
    const [headers, sent] = tamper({ ...standardWebhookHeaders(p.id, p.timestamp, body, key) }, body);
    expect(() => new Webhook(key).verify(sent, headers)).toThrow();
  });

  it('refuses a non-integer timestamp', () => {
    expect(() => standardWebhookHeaders('id', 1.5, '{}', key)).toThrow(RangeError);
  });
});
