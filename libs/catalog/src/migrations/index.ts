import { CreateCatalogReadModels1763700200000 } from './1763700200000-create-catalog-read-models';
import { OmitNullPriceMembers1763700210000 } from './1763700210000-omit-null-price-members';

export const catalogMigrations: Function[] = [CreateCatalogReadModels1763700200000, OmitNullPriceMembers1763700210000];
