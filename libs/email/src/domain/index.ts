export * from './email-settings';
export * from './invoice-email-request';
export * from './email-delivery';
