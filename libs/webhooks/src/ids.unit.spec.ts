import { uuidV5 } from '@billing/shared-kernel';
import { deliveryIdFor, notificationIdFor, subscriptionIdFor } from './ids';

describe('name-based ids', () => {
  it('matches the RFC 9562 test vector for uuid v5 (DNS namespace, www.example.com)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('gives one subscription id per (environment, url)', () => {
    const env = '11111111-1111-4111-8111-111111111111';
    const other = '22222222-2222-4222-8222-222222222222';
    const a = subscriptionIdFor(env, 'https://example.com/a');
    expect(subscriptionIdFor(env, 'https://example.com/a')).toBe(a);
    expect(subscriptionIdFor(env, 'https://example.com/b')).not.toBe(a);
    expect(subscriptionIdFor(other, 'https://example.com/a')).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('uses the event id for the first notification of an event and a stable derived id for the next', () => {
    const eventId = '33333333-3333-4333-8333-333333333333';
    expect(notificationIdFor(eventId, 'invoice.settlement_added', 0)).toBe(eventId);
    const second = notificationIdFor(eventId, 'invoice.settled', 1);
    expect(second).not.toBe(eventId);
    expect(notificationIdFor(eventId, 'invoice.settled', 1)).toBe(second);
    expect(deliveryIdFor(eventId, second)).toBe(deliveryIdFor(eventId, second));
    expect(deliveryIdFor(eventId, second)).not.toBe(deliveryIdFor(second, eventId));
  });
});
