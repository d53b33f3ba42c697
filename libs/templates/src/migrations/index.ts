import { CreateTemplatesTables1764000000000 } from './1764000000000-create-templates-tables';

export const templatesMigrations: Function[] = [CreateTemplatesTables1764000000000];
