export * from './domain';
export { templatesContext } from './templates.context';
export { templatesMigrations } from './migrations';
