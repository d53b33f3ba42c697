export * from './types';
export * from './errors';
export * from './sql';
export * from './event-store';
export * from './subscriptions';
export * from './projection-runner';
export * from './command-path';
export * from './migrations';
