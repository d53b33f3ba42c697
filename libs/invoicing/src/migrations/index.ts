export const invoicingMigrations: Function[] = [];
