export * from './types';
export * from './errors';
export * from './sql';
export * from './event-store';
export * from './projection';
export * from './projection-runner';
export * from './aggregate-store';
export * from './migrations';
