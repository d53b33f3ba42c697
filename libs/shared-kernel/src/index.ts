export * from './decider';
export * from './domain-error';
export * from './rounding';
export * from './scaled-decimal';
export * from './amount';
export * from './currency';
export * from './identifiers';
export * from './timestamp';
