import { ProblemType } from '@billing/platform';

/** The catalog's problem types (served at /problems/<code>), declared with the context. */
export const CATALOG_PROBLEMS: Record<string, ProblemType> = {
  'price-exists': { status: 409, title: 'Conflict', description: 'A price with this id already exists.' },
  'price-archived': {
    status: 409,
    title: 'Conflict',
    description: 'The price is archived: it can no longer be updated or archived again. Create a new price instead.',
  },
  'product-exists': { status: 409, title: 'Conflict', description: 'A product with this id already exists.' },
};
