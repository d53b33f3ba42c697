import { PaymentGateway } from './payment-gateway';

export class UnknownPaymentGatewayError extends Error {
  constructor(
    readonly provider: string,
    known: readonly string[],
  ) {
    super(`no payment gateway "${provider}" (known: ${known.join(', ') || 'none'})`);
    this.name = 'UnknownPaymentGatewayError';
  }
}

/** The adapters by provider name: a real gateway is one more adapter here. */
export class PaymentGateways {
  private readonly byName = new Map<string, PaymentGateway>();

  constructor(gateways: Iterable<PaymentGateway>) {
    for (const gateway of gateways) {
      if (this.byName.has(gateway.name)) throw new Error(`two payment gateways are named "${gateway.name}"`);
      this.byName.set(gateway.name, gateway);
    }
  }

  get names(): readonly string[] {
    return [...this.byName.keys()];
  }

  has(provider: string): boolean {
    return this.byName.has(provider);
  }

  find(provider: string): PaymentGateway | undefined {
    return this.byName.get(provider);
  }

  /** Throws UnknownPaymentGatewayError for a provider without an adapter. */
  get(provider: string): PaymentGateway {
    const gateway = this.byName.get(provider);
    if (!gateway) throw new UnknownPaymentGatewayError(provider, this.names);
    return gateway;
  }
}
