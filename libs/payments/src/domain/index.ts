export * from './payment';
export * from './provider';
export * from './payment-query';
export * from './dunning';
export * from './invoice-payments';
export * from './collection';
export * from './payment-settings';
