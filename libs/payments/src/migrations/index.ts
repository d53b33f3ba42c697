import { paymentsGatewayMigrations } from '../gateway/migrations';
import { CreatePaymentsReadModels1763800300000 } from './1763800300000-create-payments-read-models';

export const paymentsMigrations: Function[] = [CreatePaymentsReadModels1763800300000, ...paymentsGatewayMigrations];
