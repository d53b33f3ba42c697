export * from './domain';
export { CatalogModule } from './catalog.module';
export { catalogMigrations } from './migrations';
