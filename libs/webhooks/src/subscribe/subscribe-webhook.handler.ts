import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { decideSubscribe, resolveVersion, validateWebhookUrl, webhookSubscriptionEvolver } from '../domain';
import { webhookSubscriptionStream } from '../streams';
import { WEBHOOKS_CONFIG, WebhooksConfig } from '../config/webhooks-config';
import { subscriptionIdFor } from '../ids';
import { SignatureKeyVault } from '../key-vault';
import { SubscribeWebhookCommand, WebhookSubscriptionWithKey } from './subscribe-webhook.command';

/**
 * PUT semantics: the stream id is derived from (environment, normalised URL),
 * so subscribing the same URL again finds the same subscription and answers
 * with its id and its (decrypted) key. Two concurrent first subscriptions race
 * on the stream's creation; the loser decides again on the winner's state and
 * answers the winner's key.
 */
@CommandHandler(SubscribeWebhookCommand)
export class SubscribeWebhookHandler implements ICommandHandler<SubscribeWebhookCommand, WebhookSubscriptionWithKey> {
  constructor(
    private readonly commands: CommandPath,
    private readonly vault: SignatureKeyVault,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
  ) {}

  async execute({ caller, url: rawUrl, versionHeader, context }: SubscribeWebhookCommand): Promise<WebhookSubscriptionWithKey> {
    const url = validateWebhookUrl(rawUrl, {
      allowInsecureLoopback: this.config.allowInsecureHttp,
      allowPrivateNetworks: this.config.allowPrivateNetworks,
    });
    const version = resolveVersion(versionHeader);
    const id = subscriptionIdFor(caller.environmentId, url);
    const { state } = await this.commands.handle(
      webhookSubscriptionStream(caller.environmentId, id),
      webhookSubscriptionEvolver,
      (current) => decideSubscribe({ url, version, encryptedSignatureKey: this.vault.newKey(caller.environmentId, id).encryptedSignatureKey }, current),
      context,
      { conflicts: { retries: 1 } },
    );
    if (state.status !== 'active') throw new Error('a subscription is active right after subscribing');
    return { id, url, signatureKey: this.vault.decrypt(caller.environmentId, id, state.encryptedSignatureKey) };
  }
}
