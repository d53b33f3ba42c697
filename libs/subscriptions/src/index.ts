export * from './domain';
