export const webhooksMigrations: Function[] = [];
