import { CreateWebhooksTables1763700300000 } from './1763700300000-create-webhooks-tables';

export const webhooksMigrations: Function[] = [CreateWebhooksTables1763700300000];
