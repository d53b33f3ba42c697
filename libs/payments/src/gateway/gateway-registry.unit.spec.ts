import { PaymentGateways, UnknownPaymentGatewayError } from './gateway-registry';
import { ManualGateway } from './manual-gateway';
import { ChargeRequest, PaymentGateway } from './payment-gateway';

const request: ChargeRequest = {
  reference: 'pay_1',
  amount: 100,
  currency: 'EUR',
  token: 'bank-transfer',
  credentials: null,
  environmentId: 'env',
  invoiceId: 'inv_1',
  offSession: false,
  returnUrl: null,
  providerReference: null,
};

describe('ManualGateway', () => {
  it('succeeds at once with manual_<reference>, and a lookup answers the same', async () => {
    const gateway = new ManualGateway();
    expect(gateway.name).toBe('manual');
    expect(await gateway.charge(request)).toEqual({ kind: 'succeeded', providerReference: 'manual_pay_1' });
    expect(await gateway.lookup(request)).toEqual({ kind: 'succeeded', providerReference: 'manual_pay_1' });
  });

  it('refunds at once: the money was sent back by hand', async () => {
    const refund = {
      reference: 're_1',
      chargeReference: 'pay_1',
      chargeProviderReference: null,
      amount: 100,
      currency: 'EUR',
      credentials: null,
      environmentId: 'env',
    };
    expect(await new ManualGateway().refund(refund)).toEqual({ kind: 'succeeded', providerReference: 'manual_re_1' });
    expect(await new ManualGateway().lookupRefund(refund)).toEqual({ kind: 'succeeded', providerReference: 'manual_re_1' });
  });
});

describe('PaymentGateways', () => {
  const other: PaymentGateway = {
    name: 'other',
    charge: async () => ({ kind: 'unreachable', message: 'x' }),
    lookup: async () => ({ kind: 'not_found', message: 'x' }),
    refund: async () => ({ kind: 'unreachable', message: 'x' }),
    lookupRefund: async () => ({ kind: 'not_found', message: 'x' }),
  };

  it('finds an adapter by provider name', () => {
    const manual = new ManualGateway();
    const gateways = new PaymentGateways([manual, other]);
    expect(gateways.get('manual')).toBe(manual);
    expect(gateways.find('other')).toBe(other);
    expect(gateways.has('stripe')).toBe(false);
    expect(gateways.find('stripe')).toBeUndefined();
    expect(gateways.names).toEqual(['manual', 'other']);
  });

  it('names the known providers when asked for another', () => {
    expect(() => new PaymentGateways([new ManualGateway()]).get('stripe')).toThrow(new UnknownPaymentGatewayError('stripe', ['manual']));
    expect(() => new PaymentGateways([new ManualGateway()]).get('stripe')).toThrow('no payment gateway "stripe" (known: manual)');
  });

  it('refuses two adapters with one name', () => {
    expect(() => new PaymentGateways([new ManualGateway(), new ManualGateway()])).toThrow('two payment gateways are named "manual"');
  });
});
