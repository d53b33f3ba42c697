import { CreateSandboxGatewayCharges1763900500000 } from './1763900500000-create-sandbox-gateway-charges';

export const paymentsGatewayMigrations: Function[] = [CreateSandboxGatewayCharges1763900500000];
