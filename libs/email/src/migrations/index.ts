import { CreateEmailTables1764500000000 } from './1764500000000-create-email-tables';

export const emailMigrations: Function[] = [CreateEmailTables1764500000000];
