import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { NotFoundError } from '@billing/shared-kernel';
import { eventMetadataFor } from '@billing/platform';
import { decideRotateKey, WEBHOOK_SUBSCRIPTION_STREAM_TYPE, webhookSubscriptionEvolver } from '../domain';
import { SignatureKeyVault } from '../key-vault';
import { WebhookSubscriptionWithKey } from '../subscribe/subscribe-webhook.command';
import { RotateWebhookKey } from './rotate-webhook-key.command';

/** Immediate rotation: every attempt from now on (retries included) is signed with the new key. */
@CommandHandler(RotateWebhookKey)
export class RotateWebhookKeyHandler implements ICommandHandler<RotateWebhookKey, WebhookSubscriptionWithKey> {
  constructor(
    private readonly store: AggregateStore,
    private readonly vault: SignatureKeyVault,
  ) {}

  async execute({ caller, id, meta }: RotateWebhookKey): Promise<WebhookSubscriptionWithKey> {
    const stream = { environmentId: caller.environmentId, streamType: WEBHOOK_SUBSCRIPTION_STREAM_TYPE, streamId: id };
    const { state, version } = await this.store.load(stream, webhookSubscriptionEvolver);
    if (version === 0) throw new NotFoundError('webhook', id);
    const fresh = this.vault.newKey(caller.environmentId, id);
    const events = decideRotateKey({ encryptedSignatureKey: fresh.encryptedSignatureKey }, state);
    await this.store.append([{ stream, expectedVersion: version, events: toNewEvents(events, meta) }], eventMetadataFor(caller));
    return { id, url: state.status === 'active' ? state.url : '', signatureKey: fresh.signatureKey };
  }
}
