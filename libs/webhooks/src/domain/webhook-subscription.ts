/**
 * The webhook subscription aggregate (decider style): a pure fold and one pure
 * decide function per command. The infrastructure picks the stream (for
 * example one per environment and normalised URL), validates the URL and
 * version (`validateWebhookUrl`, `resolveVersion`: the branded types make that
 * step impossible to skip) and encrypts a fresh signature key before calling
 * in, so neither randomness nor a clear-text secret ever enters the domain.
 *
 * Deciders need no CommandMetadata: events carry no ids or times of their own
 * (the event envelope records occurredAt), so they take (command, state) only.
 *
 * Lifecycle: none -> active <-> (disabled | unsubscribed) -> active again.
 */
import { ConflictError, DomainEvent, Evolver, NotFoundError, deciderOf } from '@billing/shared-kernel';
import { WebhookUrl } from './address-policy';
import { WebhookVersion } from './versions';

export const WEBHOOK_SUBSCRIPTION_STREAM_TYPE = 'webhook-subscription';

export type WebhookSubscribed = DomainEvent<'WebhookSubscribed', { readonly url: string; readonly version: string; readonly encryptedSignatureKey: string }>;
export type WebhookSignatureKeyRotated = DomainEvent<'WebhookSignatureKeyRotated', { readonly encryptedSignatureKey: string }>;
export type WebhookUnsubscribed = DomainEvent<'WebhookUnsubscribed', Record<string, never>>;
/** The URL is recorded so a late 410 from a URL that has since been replaced disables nothing. */
export type WebhookDisabled = DomainEvent<'WebhookDisabled', { readonly url: string; readonly reason: string }>;

export type WebhookSubscriptionEvent = WebhookSubscribed | WebhookSignatureKeyRotated | WebhookUnsubscribed | WebhookDisabled;

export type WebhookSubscriptionState =
  | { readonly status: 'none' }
  | {
      readonly status: 'active';
      readonly url: string;
      readonly version: string;
      readonly encryptedSignatureKey: string;
    }
  | { readonly status: 'disabled'; readonly url: string; readonly version: string; readonly reason: string }
  | { readonly status: 'unsubscribed' };

export function initialState(): WebhookSubscriptionState {
  return { status: 'none' };
}

export function evolve(state: WebhookSubscriptionState, event: WebhookSubscriptionEvent): WebhookSubscriptionState {
  switch (event.type) {
    case 'WebhookSubscribed':
      return {
        status: 'active',
        url: event.data.url,
        version: event.data.version,
        encryptedSignatureKey: event.data.encryptedSignatureKey,
      };
    case 'WebhookSignatureKeyRotated':
      return state.status === 'active' ? { ...state, encryptedSignatureKey: event.data.encryptedSignatureKey } : state;
    case 'WebhookUnsubscribed':
      return { status: 'unsubscribed' };
    case 'WebhookDisabled':
      return state.status === 'active' ? { status: 'disabled', url: state.url, version: state.version, reason: event.data.reason } : state;
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const webhookSubscriptionEvolver: Evolver<WebhookSubscriptionState, WebhookSubscriptionEvent> = {
  initialState,
  evolve,
};

export interface SubscribeWebhook {
  readonly url: WebhookUrl;
  readonly version: WebhookVersion;
  /** A freshly generated key, already encrypted; used only when the subscription starts (again). */
  readonly encryptedSignatureKey: string;
}

/**
 * PUT semantics. Subscribing again with the same URL and version changes
 * nothing (the caller answers with the stored key). A changed URL or version
 * on an active subscription keeps the existing key, so the receiver's
 * verification does not break. A subscription that was disabled or
 * unsubscribed starts over with the new key.
 */
export function decideSubscribe(command: SubscribeWebhook, state: WebhookSubscriptionState): WebhookSubscribed[] {
  const { url, version } = command;
  if (state.status === 'active') {
    if (state.url === url && state.version === version) return [];
    return [subscribed(url, version, state.encryptedSignatureKey)];
  }
  return [subscribed(url, version, command.encryptedSignatureKey)];
}

function subscribed(url: string, version: string, encryptedSignatureKey: string): WebhookSubscribed {
  return { type: 'WebhookSubscribed', schemaVersion: 1, data: { url, version, encryptedSignatureKey } };
}

/** Immediate rotation: notifications sent from now on are signed with the new key only. */
export function decideRotateKey(
  command: { readonly id: string; readonly encryptedSignatureKey: string },
  state: WebhookSubscriptionState,
): WebhookSignatureKeyRotated[] {
  if (state.status === 'none') throw new NotFoundError('webhook', command.id);
  if (state.status !== 'active') {
    throw new ConflictError('webhook-not-active', `a ${state.status} webhook subscription has no key to rotate`);
  }
  return [{ type: 'WebhookSignatureKeyRotated', schemaVersion: 1, data: { encryptedSignatureKey: command.encryptedSignatureKey } }];
}

/** Idempotent: deleting what is already gone is not an error; what never existed is not found. */
export function decideDelete(state: WebhookSubscriptionState, id: string): WebhookUnsubscribed[] {
  if (state.status === 'none') throw new NotFoundError('webhook', id);
  if (state.status === 'unsubscribed') return [];
  return [{ type: 'WebhookUnsubscribed', schemaVersion: 1, data: {} }];
}

/**
 * Used by the dispatcher when a receiver answers 410 Gone. Idempotent and
 * never an error: several deliveries may report the same 410 concurrently, and
 * a 410 from a URL the subscription no longer uses must not disable it.
 */
export function decideDisable(command: { readonly url: string; readonly reason: string }, state: WebhookSubscriptionState): WebhookDisabled[] {
  if (state.status !== 'active' || state.url !== command.url) return [];
  return [{ type: 'WebhookDisabled', schemaVersion: 1, data: { url: command.url, reason: command.reason } }];
}

/** The WebhookSubscription aggregate as one value: what it folds (webhookSubscriptionEvolver) and what each of its commands decides. */
export const webhookSubscriptionDecider = deciderOf(webhookSubscriptionEvolver, {
  Subscribe: decideSubscribe,
  RotateKey: decideRotateKey,
  Disable: decideDisable,
});
