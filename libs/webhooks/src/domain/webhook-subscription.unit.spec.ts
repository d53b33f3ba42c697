import { ConflictError, foldEvents } from '@billing/shared-kernel';
import { WebhookUrl } from './address-policy';
import {
  WebhookSubscriptionEvent,
  WebhookSubscriptionState,
  decideDelete,
  decideDisable,
  decideRotateKey,
  decideSubscribe,
  evolve,
  initialState,
  webhookSubscriptionEvolver,
} from './webhook-subscription';

const url = 'https://example.com/hooks' as WebhookUrl;
const otherUrl = 'https://example.org/hooks' as WebhookUrl;
const subscribe = { url, version: '2022-03' as const, encryptedSignatureKey: 'v1.key-1' };

const subscribed: WebhookSubscriptionEvent = {
  type: 'WebhookSubscribed',
  schemaVersion: 1,
  data: { url, version: '2022-03', encryptedSignatureKey: 'v1.key-1' },
};
const rotated: WebhookSubscriptionEvent = { type: 'WebhookSignatureKeyRotated', schemaVersion: 1, data: { encryptedSignatureKey: 'v1.key-2' } };
const unsubscribed: WebhookSubscriptionEvent = { type: 'WebhookUnsubscribed', schemaVersion: 1, data: {} };
const disabled: WebhookSubscriptionEvent = { type: 'WebhookDisabled', schemaVersion: 1, data: { url, reason: 'receiver answered 410 Gone' } };

const stateAfter = (...events: WebhookSubscriptionEvent[]) => foldEvents(webhookSubscriptionEvolver, events);
const none = initialState();
const active = stateAfter(subscribed);
const disabledState = stateAfter(subscribed, disabled);
const unsubscribedState = stateAfter(subscribed, unsubscribed);

describe('evolve', () => {
  it('starts with no subscription', () => {
    expect(none).toEqual({ status: 'none' });
  });

  it('subscribing activates', () => {
    expect(active).toEqual({ status: 'active', url, version: '2022-03', encryptedSignatureKey: 'v1.key-1' });
  });

  it('rotation replaces the key of an active subscription', () => {
    expect(stateAfter(subscribed, rotated)).toEqual({ ...active, encryptedSignatureKey: 'v1.key-2' });
  });

  it('rotation and disabling leave an inactive subscription alone', () => {
    expect(evolve(unsubscribedState, rotated)).toBe(unsubscribedState);
    expect(evolve(unsubscribedState, disabled)).toBe(unsubscribedState);
    expect(evolve(none, rotated)).toBe(none);
  });

  it('disabling keeps url and version and records the reason', () => {
    expect(disabledState).toEqual({ status: 'disabled', url, version: '2022-03', reason: 'receiver answered 410 Gone' });
  });

  it('unsubscribing forgets the key', () => {
    expect(unsubscribedState).toEqual({ status: 'unsubscribed' });
    expect(stateAfter(subscribed, disabled, unsubscribed)).toEqual({ status: 'unsubscribed' });
  });

  it('ignores event types it does not know', () => {
    const future = { type: 'WebhookRenamed', schemaVersion: 1, data: {} } as unknown as WebhookSubscriptionEvent;
    expect(evolve(active, future)).toBe(active);
  });
});

describe('decideSubscribe', () => {
  it.each<[string, WebhookSubscriptionState]>([
    ['new', none],
    ['disabled', disabledState],
    ['unsubscribed', unsubscribedState],
  ])('a %s subscription starts with the new key', (_, state) => {
    expect(decideSubscribe(subscribe, state)).toEqual([subscribed]);
  });

  it('is a no-op for the same url and version', () => {
    expect(decideSubscribe({ ...subscribe, encryptedSignatureKey: 'v1.key-9' }, active)).toEqual([]);
  });

  it('a changed url keeps the existing key', () => {
    expect(decideSubscribe({ ...subscribe, url: otherUrl, encryptedSignatureKey: 'v1.key-9' }, stateAfter(subscribed, rotated))).toEqual([
      { type: 'WebhookSubscribed', schemaVersion: 1, data: { url: otherUrl, version: '2022-03', encryptedSignatureKey: 'v1.key-2' } },
    ]);
  });

  it('a changed version keeps the existing key', () => {
    const older = { status: 'active', url, version: '2021-01', encryptedSignatureKey: 'v1.key-1' } as const;
    expect(decideSubscribe({ ...subscribe, encryptedSignatureKey: 'v1.key-9' }, older)).toEqual([subscribed]);
  });
});

describe('decideRotateKey', () => {
  it('rotates the key of an active subscription', () => {
    expect(decideRotateKey({ encryptedSignatureKey: 'v1.key-2' }, active)).toEqual([rotated]);
  });

  it.each<[string, WebhookSubscriptionState]>([
    ['new', none],
    ['disabled', disabledState],
    ['unsubscribed', unsubscribedState],
  ])('conflicts for a %s subscription', (_, state) => {
    expect(() => decideRotateKey({ encryptedSignatureKey: 'v1.key-2' }, state)).toThrow(ConflictError);
    expect(() => decideRotateKey({ encryptedSignatureKey: 'v1.key-2' }, state)).toThrow(
      expect.objectContaining({ code: 'webhook-not-active', kind: 'conflict' }),
    );
  });
});

describe('decideDelete', () => {
  it.each<[string, WebhookSubscriptionState]>([
    ['active', active],
    ['disabled', disabledState],
  ])('unsubscribes a %s subscription', (_, state) => {
    expect(decideDelete(state)).toEqual([unsubscribed]);
  });

  it.each<[string, WebhookSubscriptionState]>([
    ['new', none],
    ['unsubscribed', unsubscribedState],
  ])('is a no-op for a %s subscription', (_, state) => {
    expect(decideDelete(state)).toEqual([]);
  });
});

describe('decideDisable', () => {
  const gone = { url, reason: 'receiver answered 410 Gone' };

  it('disables an active subscription whose url answered 410', () => {
    expect(decideDisable(gone, active)).toEqual([disabled]);
  });

  it('ignores a 410 from a url the subscription no longer uses', () => {
    expect(decideDisable({ ...gone, url: otherUrl }, active)).toEqual([]);
  });

  it.each<[string, WebhookSubscriptionState]>([
    ['new', none],
    ['disabled', disabledState],
    ['unsubscribed', unsubscribedState],
  ])('is a no-op for a %s subscription', (_, state) => {
    expect(decideDisable(gone, state)).toEqual([]);
  });
});
