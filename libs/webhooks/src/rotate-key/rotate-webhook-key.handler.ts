import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath } from '@billing/event-store';
import { decideRotateKey, webhookSubscriptionEvolver } from '../domain';
import { webhookSubscriptionStream } from '../streams';
import { SignatureKeyVault } from '../key-vault';
import { WebhookSubscriptionWithKey } from '../subscribe/subscribe-webhook.command';
import { RotateWebhookKeyCommand } from './rotate-webhook-key.command';

/** Immediate rotation: every attempt from now on (retries included) is signed with the new key. */
@CommandHandler(RotateWebhookKeyCommand)
export class RotateWebhookKeyHandler implements ICommandHandler<RotateWebhookKeyCommand, WebhookSubscriptionWithKey> {
  constructor(
    private readonly commands: CommandPath,
    private readonly vault: SignatureKeyVault,
  ) {}

  async execute({ caller, id, context }: RotateWebhookKeyCommand): Promise<WebhookSubscriptionWithKey> {
    const fresh = this.vault.newKey(caller.environmentId, id);
    const { state } = await this.commands.handle(
      webhookSubscriptionStream(caller.environmentId, id),
      webhookSubscriptionEvolver,
      (current) => decideRotateKey({ id, encryptedSignatureKey: fresh.encryptedSignatureKey }, current),
      context,
    );
    return { id, url: state.status === 'active' ? state.url : '', signatureKey: fresh.signatureKey };
  }
}
