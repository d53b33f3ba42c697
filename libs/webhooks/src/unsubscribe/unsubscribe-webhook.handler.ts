import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, toNewEvents } from '@billing/event-store';
import { NotFoundError } from '@billing/shared-kernel';
import { eventMetadataFor } from '@billing/platform';
import { decideDelete, WEBHOOK_SUBSCRIPTION_STREAM_TYPE, webhookSubscriptionEvolver } from '../domain';
import { UnsubscribeWebhook } from './unsubscribe-webhook.command';

/** Idempotent for a subscription that exists (deleting twice is fine); 404 for one that never did. */
@CommandHandler(UnsubscribeWebhook)
export class UnsubscribeWebhookHandler implements ICommandHandler<UnsubscribeWebhook, void> {
  constructor(private readonly store: AggregateStore) {}

  async execute({ caller, id, meta }: UnsubscribeWebhook): Promise<void> {
    const stream = { environmentId: caller.environmentId, streamType: WEBHOOK_SUBSCRIPTION_STREAM_TYPE, streamId: id };
    const { state, version } = await this.store.load(stream, webhookSubscriptionEvolver);
    if (version === 0) throw new NotFoundError('webhook', id);
    const events = decideDelete(state);
    if (events.length === 0) return;
    await this.store.append([{ stream, expectedVersion: version, events: toNewEvents(events, meta) }], eventMetadataFor(caller));
  }
}
