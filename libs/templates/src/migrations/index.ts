import { CreateTemplatesTables1764000400000 } from './1764000400000-create-templates-tables';

export const templatesMigrations: Function[] = [CreateTemplatesTables1764000400000];
