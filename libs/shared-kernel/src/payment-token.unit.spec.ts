import { formatSealedPaymentToken, isRedactedPaymentToken, parseSealedPaymentToken, paymentTokenHint, readModelPaymentMethod } from './payment-token';
import { secretHint } from './secret-hint';

const sealed = formatSealedPaymentToken({ keyId: 'k1', hint: '4242', box: 'v1.aXY=.dGFn.Y3Q=' });

describe('stored payment tokens', () => {
  it('given a sealed token, then its parts and its hint are read back', () => {
    expect(parseSealedPaymentToken(sealed)).toEqual({ keyId: 'k1', hint: '4242', box: 'v1.aXY=.dGFn.Y3Q=' });
    expect(paymentTokenHint(sealed)).toBe('4242');
  });

  it('given a method with a token in clear (an event from before sealing), then a read model keeps only its hint', () => {
    const kept = readModelPaymentMethod({ provider: 'stripe', token: 'pm_card_visa_4242' })!;
    expect(kept.token).not.toContain('pm_card');
    expect(isRedactedPaymentToken(kept.token)).toBe(true);
    expect(paymentTokenHint(kept.token)).toBe(secretHint('pm_card_visa_4242'));
    expect(readModelPaymentMethod(kept)).toEqual(kept);
  });

  it('given a sealed token or no method, then a read model keeps what it is given', () => {
    expect(readModelPaymentMethod({ provider: 'stripe', token: sealed })).toEqual({ provider: 'stripe', token: sealed });
    expect(readModelPaymentMethod(null)).toBeNull();
    expect(readModelPaymentMethod(undefined)).toBeUndefined();
  });

  it('given a clear token that looks like neither form, then it is no sealed token and its hint is the usual one', () => {
    for (const token of ['tok_success', 'pmt1.only.three', 'a.b.c.d.e.f.g']) {
      expect(parseSealedPaymentToken(token)).toBeNull();
      expect(paymentTokenHint(token)).toBe(secretHint(token));
    }
  });
});
