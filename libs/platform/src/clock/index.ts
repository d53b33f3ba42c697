export * from './scoped-clock';
export * from './environment-clock';
export * from './clock-driven-work';
export * from './advance-body';
