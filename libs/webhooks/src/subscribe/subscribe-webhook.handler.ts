import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, StreamVersionConflictError, toNewEvents } from '@billing/event-store';
import { eventMetadataFor } from '@billing/platform';
import {
  decideSubscribe,
  resolveVersion,
  validateWebhookUrl,
  WEBHOOK_SUBSCRIPTION_STREAM_TYPE,
  webhookSubscriptionEvolver,
} from '../domain';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../config/webhooks-config';
import { subscriptionIdFor } from '../ids';
import { SignatureKeyVault } from '../key-vault';
import { SubscribeWebhook, WebhookSubscriptionWithKey } from './subscribe-webhook.command';

/**
 * PUT semantics: the stream id is derived from (environment, normalised URL),
 * so subscribing the same URL again finds the same subscription and answers
 * with its id and its (decrypted) key. Two concurrent first subscriptions race
 * on the stream's creation; the loser reloads and answers the winner's key.
 */
@CommandHandler(SubscribeWebhook)
export class SubscribeWebhookHandler implements ICommandHandler<SubscribeWebhook, WebhookSubscriptionWithKey> {
  constructor(
    private readonly store: AggregateStore,
    private readonly vault: SignatureKeyVault,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {}

  async execute({ caller, url: rawUrl, versionHeader, meta }: SubscribeWebhook): Promise<WebhookSubscriptionWithKey> {
    const url = validateWebhookUrl(rawUrl, {
      allowInsecureLoopback: this.config.allowInsecureHttp,
      allowPrivateNetworks: this.config.allowPrivateNetworks,
    });
    const version = resolveVersion(versionHeader);
    const id = subscriptionIdFor(caller.environmentId, url);
    const stream = { environmentId: caller.environmentId, streamType: WEBHOOK_SUBSCRIPTION_STREAM_TYPE, streamId: id };
    for (let attempt = 1; ; attempt++) {
      const { state, version: streamVersion } = await this.store.load(stream, webhookSubscriptionEvolver);
      const fresh = this.vault.newKey(caller.environmentId, id);
      const events = decideSubscribe({ url, version, encryptedSignatureKey: fresh.encryptedSignatureKey }, state);
      if (events.length > 0) {
        try {
          await this.store.append(
            [{ stream, expectedVersion: streamVersion === 0 ? 'no_stream' : streamVersion, events: toNewEvents(events, meta) }],
            eventMetadataFor(caller),
          );
        } catch (error) {
          if (error instanceof StreamVersionConflictError && attempt < 3) continue;
          throw error;
        }
      }
      const encrypted =
        events.length > 0 ? events[events.length - 1].data.encryptedSignatureKey : state.status === 'active' ? state.encryptedSignatureKey : null;
      if (encrypted === null) throw new Error('an active subscription has a key');
      return { id, url, signatureKey: this.vault.decrypt(caller.environmentId, id, encrypted) };
    }
  }
}
