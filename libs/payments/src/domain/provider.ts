import {
  childPointer,
  CommandMetadata,
  DomainEvent,
  Evolver,
  FieldError,
  NotFoundError,
  secretHint,
  UNKNOWN_PROPERTY,
  ValidationError,
  deciderOf,
} from '@billing/shared-kernel';

/**
 * The PaymentProvider aggregate: one stream per (environment, provider name).
 *
 * Credentials never enter an event in clear: the HTTP layer validates them
 * (`validateProviderCredentials`), the infrastructure encrypts them and hands
 * the decider the ciphertext plus the hint. The domain therefore never holds
 * a secret beyond the validation call and has nothing to leak into logs.
 *
 * Lifecycle: none -> enabled <-> disabled. Enabling an enabled provider again
 * is a rotation: it always records the new credentials.
 */

export const PAYMENT_PROVIDER_STREAM_TYPE = 'payment-provider';

/** sandbox: the test gateway (outcome chosen by token); manual: bank transfers recorded by hand; stripe: Stripe, through its official client. */
export const KNOWN_PROVIDERS = ['sandbox', 'manual', 'stripe'] as const;
export type KnownProvider = (typeof KNOWN_PROVIDERS)[number];

export const SANDBOX_SECRET_PREFIX = 'sk_sandbox_';
/** Long enough for any real key, short enough that a pasted file is refused. */
export const MAX_SECRET_LENGTH = 255;
/** A sandbox key has at least this many characters after its prefix. */
const MIN_SECRET_PART_LENGTH = 4;

/**
 * The providers a customer may pay with on a page of ours (the hosted invoice page, a portal): those that take the
 * money from the customer. A manual payment only records money that moved elsewhere, so it is staff's word, never a
 * visitor's.
 */
export const CUSTOMER_PROVIDERS: readonly KnownProvider[] = ['sandbox', 'stripe'];

export function isKnownProvider(name: unknown): name is KnownProvider {
  return typeof name === 'string' && (KNOWN_PROVIDERS as readonly string[]).includes(name);
}

/** The one refusal of an unknown provider name, wherever it is named (`/name`, `/paymentMethod/provider`, a filter). */
export function unknownProviderDetail(): string {
  return `must be a known payment provider: ${KNOWN_PROVIDERS.join(', ')}`;
}

/** Refuses anything but a known provider name with a 422 at `pointer` (code unknown-payment-provider). */
export function assertKnownProvider(name: unknown, pointer: string): KnownProvider {
  if (!isKnownProvider(name)) throw ValidationError.at(pointer, unknownProviderDetail(), 'unknown-payment-provider');
  return name;
}

// ---------------------------------------------------------------- credentials

export interface SandboxCredentials {
  readonly secretKey: string;
}

/** A Stripe account's API key (secret `sk_test_`/`sk_live_` or restricted `rk_test_`/`rk_live_`) and its webhook endpoint's signing secret. */
export interface StripeCredentials {
  readonly secretKey: string;
  readonly webhookSecret: string;
}

export interface ValidatedProviderCredentials {
  readonly name: KnownProvider;
  /** Clear text, to be encrypted by the caller at once; null for providers without credentials (manual). */
  readonly credentials: SandboxCredentials | StripeCredentials | null;
  /** The last characters of the secret, safe to show and store; null without credentials. */
  readonly hint: string | null;
}

/** Visible ASCII only: a key copied with a trailing newline or space is a mistake worth reporting. */
const SANDBOX_SECRET = /^sk_sandbox_[\x21-\x7e]{4,}$/;

/**
 * Validates the body of POST /paymentproviders/enable. All problems with the
 * credentials are reported together; an unknown name stops early (the
 * credentials' rules depend on it). The returned object is the only place the
 * clear secret lives in the domain.
 */
export function validateProviderCredentials(name: unknown, credentials: unknown, facts: EnableFacts = { clockAdvanced: false }): ValidatedProviderCredentials {
  const provider = assertKnownProvider(name, '/name');
  if (provider === 'stripe') return validateStripeCredentials(credentials, facts);
  if (provider === 'manual') {
    if (credentials !== null && credentials !== undefined) {
      throw ValidationError.at('/credentials', 'must be null: the manual provider takes no credentials');
    }
    return { name: provider, credentials: null, hint: null };
  }
  if (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials)) {
    throw ValidationError.at('/credentials', `must be an object {"secretKey": "${SANDBOX_SECRET_PREFIX}…"}`);
  }
  const errors: FieldError[] = [];
  for (const key of Object.keys(credentials)) {
    if (key !== 'secretKey') errors.push({ pointer: childPointer('/credentials', key), detail: UNKNOWN_PROPERTY });
  }
  const secretKey: unknown = Object.prototype.hasOwnProperty.call(credentials, 'secretKey') ? (credentials as Record<string, unknown>).secretKey : undefined;
  const keyProblem = sandboxSecretProblem(secretKey);
  if (keyProblem !== null) errors.push({ pointer: '/credentials/secretKey', detail: keyProblem });
  if (errors.length > 0) {
    // Details describe the expected form only: the rejected secret is never echoed back.
    throw new ValidationError(errors.length === 1 ? errors[0].detail : 'The sandbox credentials are invalid.', errors);
  }
  const key = secretKey as string;
  return { name: provider, credentials: { secretKey: key }, hint: secretHint(key.slice(SANDBOX_SECRET_PREFIX.length)) };
}

/** What the environment's state says about credentials: live money never moves on simulated time. */
export interface EnableFacts {
  /** The environment's test clock was ever advanced. */
  readonly clockAdvanced: boolean;
}

/** sk_test_/sk_live_ (secret) or rk_test_/rk_live_ (restricted) keys: the prefix, then the key's own characters. */
const STRIPE_SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/;
const STRIPE_WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/=]{8,}$/;

function validateStripeCredentials(credentials: unknown, facts: EnableFacts): ValidatedProviderCredentials {
  if (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials)) {
    throw ValidationError.at('/credentials', 'must be an object {"secretKey": "sk_test_…", "webhookSecret": "whsec_…"}');
  }
  const errors: FieldError[] = [];
  for (const key of Object.keys(credentials)) {
    if (key !== 'secretKey' && key !== 'webhookSecret') errors.push({ pointer: childPointer('/credentials', key), detail: UNKNOWN_PROPERTY });
  }
  const given = credentials as Record<string, unknown>;
  const secretKey = Object.prototype.hasOwnProperty.call(given, 'secretKey') ? given.secretKey : undefined;
  const webhookSecret = Object.prototype.hasOwnProperty.call(given, 'webhookSecret') ? given.webhookSecret : undefined;
  const keyProblem = stripeKeyProblem(secretKey, facts);
  if (keyProblem !== null) errors.push({ pointer: '/credentials/secretKey', detail: keyProblem });
  const secretProblem = stripeWebhookSecretProblem(webhookSecret);
  if (secretProblem !== null) errors.push({ pointer: '/credentials/webhookSecret', detail: secretProblem });
  if (errors.length > 0) {
    // As for the sandbox: the details describe the expected form, never the rejected secret.
    throw new ValidationError(errors.length === 1 ? errors[0].detail : 'The Stripe credentials are invalid.', errors);
  }
  const key = secretKey as string;
  const prefix = key.slice(0, key.indexOf('_', 3) + 1);
  return {
    name: 'stripe',
    credentials: { secretKey: key, webhookSecret: webhookSecret as string },
    // The mode shows (test or live, which is no secret), then the hint of the key's own part.
    hint: `${prefix}${secretHint(key.slice(prefix.length))}`,
  };
}

function stripeKeyProblem(secretKey: unknown, facts: EnableFacts): string | null {
  const expected = 'a Stripe secret key (sk_test_…, sk_live_…) or restricted key (rk_test_…, rk_live_…)';
  if (secretKey === undefined) return `is required: ${expected}`;
  if (typeof secretKey !== 'string') return `must be ${expected}`;
  if (secretKey.length > MAX_SECRET_LENGTH) return `must be at most ${MAX_SECRET_LENGTH} characters`;
  if (secretKey.startsWith('pk_')) return `is a publishable key, which cannot charge: must be ${expected}`;
  if (!STRIPE_SECRET_KEY.test(secretKey)) return `must be ${expected}`;
  if (/^(sk|rk)_live_/.test(secretKey) && facts.clockAdvanced) {
    return "is a live key, but this environment's test clock has been advanced: live money never moves on simulated time (use a test key)";
  }
  return null;
}

function stripeWebhookSecretProblem(webhookSecret: unknown): string | null {
  const expected = "the webhook endpoint's signing secret (whsec_…), from the Stripe dashboard";
  if (webhookSecret === undefined) return `is required: ${expected}`;
  if (typeof webhookSecret !== 'string') return `must be ${expected}`;
  if (webhookSecret.length > MAX_SECRET_LENGTH) return `must be at most ${MAX_SECRET_LENGTH} characters`;
  if (!STRIPE_WEBHOOK_SECRET.test(webhookSecret)) return `must be ${expected}`;
  return null;
}

function sandboxSecretProblem(secretKey: unknown): string | null {
  const expected = `a string starting with ${SANDBOX_SECRET_PREFIX} followed by at least ${MIN_SECRET_PART_LENGTH} visible ASCII characters`;
  if (secretKey === undefined) return `is required: ${expected}`;
  if (typeof secretKey !== 'string') return `must be ${expected}`;
  if (secretKey.length > MAX_SECRET_LENGTH) return `must be at most ${MAX_SECRET_LENGTH} characters`;
  if (!SANDBOX_SECRET.test(secretKey)) return `must be ${expected}`;
  return null;
}

// ---------------------------------------------------------------- events and state

/** Credentials as events and state carry them: encrypted by the infrastructure under the named key. */
export interface EncryptedCredentials {
  readonly keyId: string;
  readonly ciphertext: string;
}

export interface PaymentProviderEnabledData {
  /** Assigned on the first enabling and kept through rotations and re-enabling. */
  readonly providerId: string;
  readonly name: KnownProvider;
  readonly credentialsHint: string | null;
  readonly credentials: EncryptedCredentials | null;
  readonly enabledAt: string;
}
export interface PaymentProviderDisabledData {
  readonly name: KnownProvider;
  readonly disabledAt: string;
}

export type PaymentProviderEnabled = DomainEvent<'PaymentProviderEnabled', PaymentProviderEnabledData>;
export type PaymentProviderDisabled = DomainEvent<'PaymentProviderDisabled', PaymentProviderDisabledData>;
export type PaymentProviderEvent = PaymentProviderEnabled | PaymentProviderDisabled;

export type PaymentProviderStatus = 'enabled' | 'disabled';

export interface PaymentProvider {
  readonly status: PaymentProviderStatus;
  readonly id: string;
  readonly name: KnownProvider;
  readonly credentialsHint: string | null;
  /** Kept while disabled (re-enabling takes new credentials anyway); never returned by the API. */
  readonly credentials: EncryptedCredentials | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type PaymentProviderState = { readonly status: 'none' } | PaymentProvider;

export function initialPaymentProviderState(): PaymentProviderState {
  return { status: 'none' };
}

export function evolvePaymentProvider(state: PaymentProviderState, event: PaymentProviderEvent): PaymentProviderState {
  switch (event.type) {
    case 'PaymentProviderEnabled': {
      const { providerId, name, credentialsHint, credentials, enabledAt } = event.data;
      return {
        status: 'enabled',
        id: providerId,
        name,
        credentialsHint,
        credentials,
        createdAt: state.status === 'none' ? enabledAt : state.createdAt,
        updatedAt: enabledAt,
      };
    }
    case 'PaymentProviderDisabled':
      return state.status === 'none' ? state : { ...state, status: 'disabled', updatedAt: event.data.disabledAt };
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const paymentProviderEvolver: Evolver<PaymentProviderState, PaymentProviderEvent> = {
  initialState: initialPaymentProviderState,
  evolve: evolvePaymentProvider,
};

// ---------------------------------------------------------------- deciders

export interface EnablePaymentProvider {
  readonly name: KnownProvider;
  /** From validateProviderCredentials. */
  readonly credentialsHint: string | null;
  /** The validated credentials after encryption; null exactly when the provider takes none. */
  readonly credentials: EncryptedCredentials | null;
}

/**
 * Always emits: enabling again is how credentials are rotated, and an event
 * per rotation is the audit trail. The id comes from meta.newId() on the
 * first enabling only.
 */
export function decideEnableProvider(command: EnablePaymentProvider, state: PaymentProviderState, meta: CommandMetadata): PaymentProviderEnabled[] {
  const name = assertKnownProvider(command.name, '/name');
  // A mismatch here is a wiring bug (credentials encrypted for the wrong provider), not a client error.
  if ((name === 'manual') !== (command.credentials === null)) {
    throw new Error(`provider ${name} ${name === 'manual' ? 'takes no' : 'needs'} credentials`);
  }
  if (state.status !== 'none' && state.name !== name) throw new Error(`stream of provider ${state.name} cannot enable ${name}`);
  return [
    {
      type: 'PaymentProviderEnabled',
      schemaVersion: 1,
      data: {
        providerId: state.status === 'none' ? meta.newId() : state.id,
        name,
        credentialsHint: command.credentialsHint,
        credentials: command.credentials,
        enabledAt: meta.now.toISOString(),
      },
    },
  ];
}

/** Idempotent: disabling a disabled provider changes nothing; one never enabled is not found. */
export function decideDisableProvider(command: { readonly name: string }, state: PaymentProviderState, meta: CommandMetadata): PaymentProviderDisabled[] {
  if (state.status === 'none') throw new NotFoundError('payment provider', command.name);
  if (state.status === 'disabled') return [];
  return [{ type: 'PaymentProviderDisabled', schemaVersion: 1, data: { name: state.name, disabledAt: meta.now.toISOString() } }];
}

/** The PaymentProvider aggregate as one value: what it folds (paymentProviderEvolver) and what each of its commands decides. */
export const paymentProviderDecider = deciderOf(paymentProviderEvolver, { EnableProvider: decideEnableProvider, DisableProvider: decideDisableProvider });
