import { randomUUID } from 'node:crypto';
import { foldEvents } from '@billing/shared-kernel';
import { append, projectionSpec } from '@billing/testing/projection-spec';
import {
  decideDelete,
  decideDisable,
  decideRotateKey,
  decideSubscribe,
  NEWEST_VERSION,
  WebhookSubscriptionEvent,
  webhookSubscriptionEvolver,
  WebhookUrl,
} from '../domain';
import { webhookSubscriptionStream } from '../streams';
import { subscriptionsProjection } from './subscriptions.projection';

/** The `webhooks.subscriptions` projection on real Postgres: subscriptions made by the real deciders, then their rows. */
const spec = projectionSpec(subscriptionsProjection);
const SUBSCRIBED = '2026-01-15T10:00:00.000Z';
const LATER = '2026-01-20T09:00:00.000Z';
const url = 'https://receiver.example/hooks' as WebhookUrl;
const rows = `select id, url, version, status, encrypted_signature_key, disabled_reason, created_at, updated_at, stream_version
                from webhook_subscriptions where environment_id = $1`;

const subscribe = () => decideSubscribe({ url, version: NEWEST_VERSION, encryptedSignatureKey: 'v1.key-1' }, webhookSubscriptionEvolver.initialState());
const after = (...events: WebhookSubscriptionEvent[]) => foldEvents(webhookSubscriptionEvolver, [...subscribe(), ...events]);
const row = (id: string, changes: Record<string, unknown>) => ({
  id,
  url,
  version: NEWEST_VERSION,
  status: 'active',
  encrypted_signature_key: 'v1.key-1',
  disabled_reason: null,
  created_at: new Date(SUBSCRIBED),
  updated_at: new Date(SUBSCRIBED),
  stream_version: 1,
  ...changes,
});

describe('webhooks.subscriptions projection (Postgres)', () => {
  it('given a subscription, then an active row with its URL, version and key, created and updated at the event’s time', async () => {
    const env = randomUUID();
    const id = randomUUID();
    await spec.given(append(webhookSubscriptionStream(env, id), subscribe(), SUBSCRIBED)).thenRows(rows, [env], [row(id, {})]);
  });

  it('given a subscription, when its key is rotated in a later batch, then the row holds the new key at version 2 (created_at kept)', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const rotated = decideRotateKey({ id, encryptedSignatureKey: 'v1.key-2' }, after());
    await spec
      .given(append(webhookSubscriptionStream(env, id), subscribe(), SUBSCRIBED))
      .when(append(webhookSubscriptionStream(env, id), rotated, LATER))
      .thenRows(rows, [env], [row(id, { encrypted_signature_key: 'v1.key-2', updated_at: new Date(LATER), stream_version: 2 })]);
  });

  it('given a receiver’s 410, then the row is disabled with the reason and no key; deleted, a row keeps neither key nor reason', async () => {
    const env = randomUUID();
    const [gone, deleted, goneThenDeleted] = [randomUUID(), randomUUID(), randomUUID()];
    const disabled = decideDisable({ url, reason: 'receiver answered 410 Gone' }, after());
    const stream = (id: string) => webhookSubscriptionStream(env, id);
    await spec
      .given(
        append(stream(gone), subscribe(), SUBSCRIBED),
        append(stream(deleted), subscribe(), SUBSCRIBED),
        append(stream(goneThenDeleted), subscribe(), SUBSCRIBED),
      )
      .when(
        append(stream(gone), disabled, LATER),
        append(stream(deleted), decideDelete(after(), deleted), LATER),
        append(stream(goneThenDeleted), [...disabled, ...decideDelete(after(...disabled), goneThenDeleted)], LATER),
      )
      .then(async (query) => {
        const byId = new Map((await query<{ id: string }>(rows, [env])).map((r) => [r.id, r]));
        const ended = { encrypted_signature_key: null, updated_at: new Date(LATER) };
        expect(byId.get(gone)).toEqual(row(gone, { ...ended, status: 'disabled', disabled_reason: 'receiver answered 410 Gone', stream_version: 2 }));
        expect(byId.get(deleted)).toEqual(row(deleted, { ...ended, status: 'unsubscribed', stream_version: 2 }));
        expect(byId.get(goneThenDeleted)).toEqual(row(goneThenDeleted, { ...ended, status: 'unsubscribed', stream_version: 3 }));
      });
  });

  it('given a subscription, when an event type of a newer release arrives, then the row is left as it was (no error)', async () => {
    const env = randomUUID();
    const id = randomUUID();
    await spec
      .given(append(webhookSubscriptionStream(env, id), subscribe(), SUBSCRIBED))
      .when(append(webhookSubscriptionStream(env, id), [{ type: 'WebhookPaused', schemaVersion: 1, data: { until: LATER } }], LATER))
      .thenRows(rows, [env], [row(id, {})]);
  });

  it('given a subscription and its rotation applied twice (a replayed batch), then the row is the one a single pass makes', async () => {
    const env = randomUUID();
    const id = randomUUID();
    const rotated = decideRotateKey({ id, encryptedSignatureKey: 'v1.key-2' }, after());
    await spec
      .given(append(webhookSubscriptionStream(env, id), subscribe(), SUBSCRIBED), append(webhookSubscriptionStream(env, id), rotated, LATER))
      .twice()
      .thenRows(rows, [env], [row(id, { encrypted_signature_key: 'v1.key-2', updated_at: new Date(LATER), stream_version: 2 })]);
  });
});
