import { CreateAnalyticsTables1764500500000 } from './1764500500000-create-analytics-tables';

export const analyticsMigrations: Function[] = [CreateAnalyticsTables1764500500000];
