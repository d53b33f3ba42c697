export * from './address-policy';
export * from './retry-schedule';
export * from './signing';
export * from './versions';
export * from './webhook-subscription';
