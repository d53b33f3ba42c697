import { CreateCatalogReadModels1763700200000 } from './1763700200000-create-catalog-read-models';

export const catalogMigrations: Function[] = [CreateCatalogReadModels1763700200000];
