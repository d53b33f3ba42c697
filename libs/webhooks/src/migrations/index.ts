import { CreateWebhooksTables1763700300000 } from './1763700300000-create-webhooks-tables';
import { WebhookDeliveriesRefusedStatus1763700310000 } from './1763700310000-webhook-deliveries-refused-status';

export const webhooksMigrations: Function[] = [CreateWebhooksTables1763700300000, WebhookDeliveriesRefusedStatus1763700310000];
