import { CreateSandboxGatewayCharges1763900500000 } from './1763900500000-create-sandbox-gateway-charges';
import { CreateSandboxGatewayRefunds1764000200000 } from './1764000200000-create-sandbox-gateway-refunds';
import { CreateStripeGatewayTables1764500300000 } from './1764500300000-create-stripe-gateway-tables';

export const paymentsGatewayMigrations: Function[] = [
  CreateSandboxGatewayCharges1763900500000,
  CreateSandboxGatewayRefunds1764000200000,
  CreateStripeGatewayTables1764500300000,
];
