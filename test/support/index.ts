export * from './test-database';
export * from './e2e-app';
export * from './expect-problem';
export * from './decider-spec';
export * from './eventually';
export * from './environment-call';
