export const catalogMigrations: Function[] = [];
