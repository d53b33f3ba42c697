import { UNKNOWN_PROPERTY, ValidationError, foldEvents } from '@billing/shared-kernel';
import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import {
  EnablePaymentProvider,
  PaymentProviderDisabled,
  PaymentProviderEnabled,
  PaymentProviderEvent,
  decideDisableProvider,
  decideEnableProvider,
  evolvePaymentProvider,
  paymentProviderEvolver,
  validateProviderCredentials,
} from './provider';

const NOW = '2025-03-01T10:00:00.000Z';
const LATER = '2025-03-02T10:00:00.000Z';
const spec = deciderSpec(paymentProviderEvolver);

function thrown(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('validateProviderCredentials', () => {
  it('accepts a sandbox key and hints at its last 4 characters', () => {
    expect(validateProviderCredentials('sandbox', { secretKey: 'sk_sandbox_abcdefgh12341234' })).toEqual({
      name: 'sandbox',
      credentials: { secretKey: 'sk_sandbox_abcdefgh12341234' },
      hint: '1234',
    });
  });

  it('accepts the shortest sandbox key, and hints at no more than a quarter of its secret part', () => {
    expect(validateProviderCredentials('sandbox', { secretKey: 'sk_sandbox_wxyz' }).hint).toBe('z');
  });

  it.each([null, undefined])('accepts manual with credentials %p', (credentials) => {
    expect(validateProviderCredentials('manual', credentials)).toEqual({ name: 'manual', credentials: null, hint: null });
  });

  it.each([undefined, 'adyen', 'Sandbox', 42])('refuses name %p at /name, listing the known providers', (name) => {
    const error = thrown(() => validateProviderCredentials(name, { secretKey: 'sk_sandbox_abcd' }));
    expect(error).toMatchObject({
      code: 'unknown-payment-provider',
      errors: [{ pointer: '/name', detail: 'must be a known payment provider: sandbox, manual, stripe' }],
    });
  });

  it.each<[string, unknown]>([
    ['a missing key', {}],
    ['a number', { secretKey: 1234 }],
    ['the wrong prefix', { secretKey: 'sk_live_abcdefgh' }],
    ['too short a key', { secretKey: 'sk_sandbox_abc' }],
    ['a trailing newline', { secretKey: 'sk_sandbox_abcd\n' }],
    ['a space', { secretKey: 'sk_sandbox_ab cd' }],
    ['too long a key', { secretKey: `sk_sandbox_${'a'.repeat(250)}` }],
  ])('refuses %s at /credentials/secretKey', (_, credentials) => {
    expect(thrown(() => validateProviderCredentials('sandbox', credentials)).errors).toEqual([
      { pointer: '/credentials/secretKey', detail: expect.any(String) },
    ]);
  });

  it('never echoes the refused secret', () => {
    const error = thrown(() => validateProviderCredentials('sandbox', { secretKey: 'sk_live_supersecret' }));
    expect(JSON.stringify({ message: error.message, errors: error.errors })).not.toContain('supersecret');
  });

  it.each([null, 'sk_sandbox_abcd', ['sk_sandbox_abcd']])('refuses sandbox credentials %p at /credentials', (credentials) => {
    expect(thrown(() => validateProviderCredentials('sandbox', credentials)).errors).toEqual([
      { pointer: '/credentials', detail: expect.stringContaining('secretKey') },
    ]);
  });

  it('reports every unknown member at its own pointer, with the key problem', () => {
    const error = thrown(() => validateProviderCredentials('sandbox', { secretKey: 1, 'a/b': 1, extra: 2 }));
    expect(error.errors).toEqual([
      { pointer: '/credentials/a~1b', detail: UNKNOWN_PROPERTY },
      { pointer: '/credentials/extra', detail: UNKNOWN_PROPERTY },
      { pointer: '/credentials/secretKey', detail: expect.stringContaining('sk_sandbox_') },
    ]);
  });

  it('does not take secretKey from the prototype', () => {
    const credentials = Object.create({ secretKey: 'sk_sandbox_abcd' }) as object;
    expect(thrown(() => validateProviderCredentials('sandbox', credentials)).errors).toEqual([
      { pointer: '/credentials/secretKey', detail: expect.stringMatching(/^is required/) },
    ]);
  });

  it.each([{}, { secretKey: 'sk_sandbox_abcd' }, 'x'])('refuses manual credentials %p at /credentials', (credentials) => {
    expect(thrown(() => validateProviderCredentials('manual', credentials)).errors).toEqual([
      { pointer: '/credentials', detail: 'must be null: the manual provider takes no credentials' },
    ]);
  });
});

const encrypted = { keyId: 'k1', ciphertext: 'v1.abc' };
const enableSandbox: EnablePaymentProvider = { name: 'sandbox', credentialsHint: 'abcd', credentials: encrypted };
const enabled: PaymentProviderEnabled = {
  type: 'PaymentProviderEnabled',
  schemaVersion: 1,
  data: { providerId: 'id-1', name: 'sandbox', credentialsHint: 'abcd', credentials: encrypted, enabledAt: NOW },
};
const rotated: PaymentProviderEnabled = {
  type: 'PaymentProviderEnabled',
  schemaVersion: 1,
  data: { providerId: 'id-1', name: 'sandbox', credentialsHint: 'wxyz', credentials: { keyId: 'k1', ciphertext: 'v1.def' }, enabledAt: LATER },
};
const disabled: PaymentProviderDisabled = { type: 'PaymentProviderDisabled', schemaVersion: 1, data: { name: 'sandbox', disabledAt: LATER } };

describe('evolvePaymentProvider', () => {
  it('enabling keeps the first creation time and id through rotations', () => {
    expect(foldEvents(paymentProviderEvolver, [enabled, rotated])).toEqual({
      status: 'enabled',
      id: 'id-1',
      name: 'sandbox',
      credentialsHint: 'wxyz',
      credentials: { keyId: 'k1', ciphertext: 'v1.def' },
      createdAt: NOW,
      updatedAt: LATER,
    });
  });

  it('disabling keeps the hint', () => {
    expect(foldEvents(paymentProviderEvolver, [enabled, disabled])).toMatchObject({ status: 'disabled', credentialsHint: 'abcd', updatedAt: LATER });
  });

  it('ignores a disable before any enable, and unknown event types', () => {
    const none = paymentProviderEvolver.initialState();
    expect(evolvePaymentProvider(none, disabled)).toBe(none);
    const state = foldEvents(paymentProviderEvolver, [enabled]);
    expect(evolvePaymentProvider(state, { type: 'PaymentProviderRenamed', schemaVersion: 1, data: {} } as unknown as PaymentProviderEvent)).toBe(state);
  });
});

describe('decideEnableProvider', () => {
  it('enables a new provider with a fresh id', () => {
    spec
      .given([])
      .when((state) => decideEnableProvider(enableSandbox, state, metadataAt(NOW)))
      .then([enabled]);
  });

  it('rotates: enabling again always records the new credentials under the same id', () => {
    spec
      .given([enabled])
      .when((state) =>
        decideEnableProvider({ name: 'sandbox', credentialsHint: 'wxyz', credentials: rotated.data.credentials }, state, metadataAt(LATER, 'new')),
      )
      .then([rotated]);
  });

  it('re-enables a disabled provider, keeping its id', () => {
    spec
      .given([enabled, disabled])
      .when((state) => decideEnableProvider(enableSandbox, state, metadataAt(LATER, 'new')))
      .then([{ ...enabled, data: { ...enabled.data, enabledAt: LATER } }]);
  });

  it('enables manual without credentials', () => {
    spec
      .given([])
      .when((state) => decideEnableProvider({ name: 'manual', credentialsHint: null, credentials: null }, state, metadataAt(NOW)))
      .then([
        {
          type: 'PaymentProviderEnabled',
          schemaVersion: 1,
          data: { providerId: 'id-1', name: 'manual', credentialsHint: null, credentials: null, enabledAt: NOW },
        },
      ]);
  });

  it.each<[string, EnablePaymentProvider]>([
    ['sandbox without credentials', { name: 'sandbox', credentialsHint: null, credentials: null }],
    ['manual with credentials', { name: 'manual', credentialsHint: 'abcd', credentials: encrypted }],
  ])('refuses %s as a wiring bug', (_, command) => {
    spec
      .given([])
      .when((state) => decideEnableProvider(command, state, metadataAt(NOW)))
      .thenThrows({ name: 'Error' });
  });

  it("refuses another provider's stream as a wiring bug", () => {
    spec
      .given([enabled])
      .when((state) => decideEnableProvider({ name: 'manual', credentialsHint: null, credentials: null }, state, metadataAt(NOW)))
      .thenThrows({ message: 'stream of provider sandbox cannot enable manual' });
  });
});

describe('decideDisableProvider', () => {
  it('disables an enabled provider', () => {
    spec
      .given([enabled])
      .when((state) => decideDisableProvider({ name: 'sandbox' }, state, metadataAt(LATER)))
      .then([disabled]);
  });

  it('is a no-op on a disabled provider', () => {
    spec
      .given([enabled, disabled])
      .when((state) => decideDisableProvider({ name: 'sandbox' }, state, metadataAt(LATER)))
      .then([]);
  });

  it('is not found for a provider never enabled', () => {
    spec
      .given([])
      .when((state) => decideDisableProvider({ name: 'sandbox' }, state, metadataAt(LATER)))
      .thenThrows({ kind: 'not_found', message: 'payment provider sandbox was not found' });
  });
});

describe('validateProviderCredentials: stripe', () => {
  const valid = { secretKey: 'sk_test_51AbCdEfGhIjKlMn0123', webhookSecret: 'whsec_0123456789abcdefABCDEF' };

  it.each(['sk_test_51AbCdEfGhIjKlMn0123', 'sk_live_51AbCdEfGhIjKlMn0123', 'rk_test_51AbCdEfGhIjKlMn0123', 'rk_live_51AbCdEfGhIjKlMn0123'])(
    'accepts %s, hinting at the mode and the last characters only',
    (secretKey) => {
      const validated = validateProviderCredentials('stripe', { ...valid, secretKey });
      expect(validated.credentials).toEqual({ ...valid, secretKey });
      expect(validated.hint).toBe(`${secretKey.slice(0, 8)}0123`);
    },
  );

  it.each([
    ['pk_test_51AbCdEfGhIjKlMn0123', /publishable key/],
    ['sk_sandbox_abcdefgh', /Stripe secret key/],
    ['sk_test_short', /Stripe secret key/],
    ['sk_test_51AbCdEfGhIjKlMn0123\n', /Stripe secret key/],
    [42, /Stripe secret key/],
  ])('refuses secretKey %p at /credentials/secretKey, never echoing it', (secretKey, detail) => {
    const error = thrown(() => validateProviderCredentials('stripe', { ...valid, secretKey }));
    expect(error.errors).toEqual([{ pointer: '/credentials/secretKey', detail: expect.stringMatching(detail) }]);
    if (typeof secretKey === 'string') expect(JSON.stringify(error)).not.toContain(secretKey.trim());
  });

  it('refuses a live key once the environment test clock was advanced; a test key is fine there', () => {
    const error = thrown(() => validateProviderCredentials('stripe', { ...valid, secretKey: 'sk_live_51AbCdEfGhIjKlMn0123' }, { clockAdvanced: true }));
    expect(error.errors).toEqual([{ pointer: '/credentials/secretKey', detail: expect.stringMatching(/live key.*test clock/) }]);
    expect(validateProviderCredentials('stripe', valid, { clockAdvanced: true }).name).toBe('stripe');
  });

  it('reports the webhook secret, a missing key and unknown members together', () => {
    const error = thrown(() => validateProviderCredentials('stripe', { webhookSecret: 'secret', extra: 1 }));
    expect(error.errors.map((e) => e.pointer)).toEqual(['/credentials/extra', '/credentials/secretKey', '/credentials/webhookSecret']);
  });

  it('refuses credentials that are not an object', () => {
    expect(thrown(() => validateProviderCredentials('stripe', null)).errors).toEqual([{ pointer: '/credentials', detail: expect.any(String) }]);
  });
});
