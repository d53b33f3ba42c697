import { CreateSandboxGatewayCharges1763900500000 } from './1763900500000-create-sandbox-gateway-charges';
import { CreateSandboxGatewayRefunds1764000200000 } from './1764000200000-create-sandbox-gateway-refunds';

export const paymentsGatewayMigrations: Function[] = [CreateSandboxGatewayCharges1763900500000, CreateSandboxGatewayRefunds1764000200000];
