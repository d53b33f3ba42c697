import { foldEvents } from '@billing/shared-kernel';
import { deciderSpec } from '@billing/testing/decider-spec';
import { WebhookUrl } from './address-policy';
import {
  WebhookSubscriptionEvent,
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

const spec = deciderSpec(webhookSubscriptionEvolver);

describe('decideSubscribe', () => {
  it.each<[string, WebhookSubscriptionEvent[]]>([
    ['new', []],
    ['disabled', [subscribed, disabled]],
    ['unsubscribed', [subscribed, unsubscribed]],
  ])('a %s subscription starts with the new key', (_, history) => {
    spec
      .given(history)
      .when((state) => decideSubscribe(subscribe, state))
      .then([subscribed]);
  });

  it('is a no-op for the same url and version', () => {
    spec
      .given([subscribed])
      .when((state) => decideSubscribe({ ...subscribe, encryptedSignatureKey: 'v1.key-9' }, state))
      .then([]);
  });

  it('a changed url keeps the existing key', () => {
    spec
      .given([subscribed, rotated])
      .when((state) => decideSubscribe({ ...subscribe, url: otherUrl, encryptedSignatureKey: 'v1.key-9' }, state))
      .then([{ type: 'WebhookSubscribed', schemaVersion: 1, data: { url: otherUrl, version: '2022-03', encryptedSignatureKey: 'v1.key-2' } }]);
  });

  it('a changed version keeps the existing key', () => {
    const older: WebhookSubscriptionEvent = {
      type: 'WebhookSubscribed',
      schemaVersion: 1,
      data: { url, version: '2021-01', encryptedSignatureKey: 'v1.key-1' },
    };
    spec
      .given([older])
      .when((state) => decideSubscribe({ ...subscribe, encryptedSignatureKey: 'v1.key-9' }, state))
      .then([subscribed]);
  });
});

describe('decideRotateKey', () => {
  const rotate = { id: 'w-1', encryptedSignatureKey: 'v1.key-2' };

  it('rotates the key of an active subscription', () => {
    spec
      .given([subscribed])
      .when((state) => decideRotateKey(rotate, state))
      .then([rotated]);
  });

  it('is not found for a subscription that never existed', () => {
    spec
      .given([])
      .when((state) => decideRotateKey(rotate, state))
      .thenThrows({ code: 'not-found', kind: 'not_found' });
  });

  it.each<[string, WebhookSubscriptionEvent[]]>([
    ['disabled', [subscribed, disabled]],
    ['unsubscribed', [subscribed, unsubscribed]],
  ])('conflicts for a %s subscription', (_, history) => {
    spec
      .given(history)
      .when((state) => decideRotateKey(rotate, state))
      .thenThrows({ code: 'webhook-not-active', kind: 'conflict' });
  });
});

describe('decideDelete', () => {
  it.each<[string, WebhookSubscriptionEvent[]]>([
    ['active', [subscribed]],
    ['disabled', [subscribed, disabled]],
  ])('unsubscribes a %s subscription', (_, history) => {
    spec
      .given(history)
      .when((state) => decideDelete(state, 'w-1'))
      .then([unsubscribed]);
  });

  it('is a no-op for a subscription deleted before', () => {
    spec
      .given([subscribed, unsubscribed])
      .when((state) => decideDelete(state, 'w-1'))
      .then([]);
  });

  it('is not found for a subscription that never existed', () => {
    spec
      .given([])
      .when((state) => decideDelete(state, 'w-1'))
      .thenThrows({ code: 'not-found' });
  });
});

describe('decideDisable', () => {
  const gone = { url, reason: 'receiver answered 410 Gone' };

  it('disables an active subscription whose url answered 410', () => {
    spec
      .given([subscribed])
      .when((state) => decideDisable(gone, state))
      .then([disabled]);
  });

  it('ignores a 410 from a url the subscription no longer uses', () => {
    spec
      .given([subscribed])
      .when((state) => decideDisable({ ...gone, url: otherUrl }, state))
      .then([]);
  });

  it.each<[string, WebhookSubscriptionEvent[]]>([
    ['new', []],
    ['disabled', [subscribed, disabled]],
    ['unsubscribed', [subscribed, unsubscribed]],
  ])('is a no-op for a %s subscription', (_, history) => {
    spec
      .given(history)
      .when((state) => decideDisable(gone, state))
      .then([]);
  });
});
