import { CommandMetadata } from '@billing/shared-kernel';
import { CallerContext } from '@billing/platform';

export class RotateWebhookKey {
  constructor(readonly caller: CallerContext, readonly id: string, readonly meta: CommandMetadata) {}
}
