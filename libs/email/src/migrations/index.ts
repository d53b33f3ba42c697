import { CreateEmailTables1764500000000 } from './1764500000000-create-email-tables';
import { EmailNotices1764500400000 } from './1764500400000-email-notices';

export const emailMigrations: Function[] = [CreateEmailTables1764500000000, EmailNotices1764500400000];
