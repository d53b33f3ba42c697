import { ChargeRequest, GatewayOutcome, GatewayRefundOutcome, LookupOutcome, PaymentGateway, RefundLookupOutcome, RefundRequest } from './payment-gateway';

/**
 * Provider `manual`: payments recorded by hand (a bank transfer someone saw
 * arrive). Recording is the charge: it succeeds at once, with provider
 * reference `manual_<reference>`, and a lookup answers the same. A refund is
 * likewise money someone sent back by hand: recorded, it succeeded. Nothing
 * is stored: the payment's own record is the only one.
 */
export class ManualGateway implements PaymentGateway {
  readonly name = 'manual';

  async charge(request: ChargeRequest): Promise<GatewayOutcome> {
    return succeeded(request);
  }

  async lookup(request: ChargeRequest): Promise<LookupOutcome> {
    return succeeded(request);
  }

  async refund(request: RefundRequest): Promise<GatewayRefundOutcome> {
    return succeeded(request);
  }

  async lookupRefund(request: RefundRequest): Promise<RefundLookupOutcome> {
    return succeeded(request);
  }
}

function succeeded(request: { reference: string }): { kind: 'succeeded'; providerReference: string } {
  return { kind: 'succeeded', providerReference: `manual_${request.reference}` };
}
