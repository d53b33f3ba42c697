import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, formatSealedPaymentToken, isRedactedPaymentToken, parseSealedPaymentToken, secretHint } from '@billing/shared-kernel';
import { APP_CONFIG, AppConfig, PAYMENTS_ENCRYPTION_KEY_REQUIRED } from '../config/app-config';

/**
 * Payment-method tokens at rest: a token is sealed where it enters (a
 * subscription's or a customer's payment method) and opened only for the
 * gateway call, so events, snapshots and read models never hold it in clear.
 * The keys are the payments encryption keys (PAYMENTS_ENCRYPTION_KEY): the
 * first seals, any opens. The associated data binds a sealed token to its
 * environment: copied into another environment, it does not open.
 */
@Injectable()
export class PaymentTokenVault {
  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'paymentsEncryptionKeys'>) {}

  /** The token sealed under the current key; a token sealed already is kept as it is. */
  seal(environmentId: string, token: string): string {
    if (parseSealedPaymentToken(token)) return token;
    const [current] = this.keys();
    return formatSealedPaymentToken({
      keyId: current.id,
      hint: secretHint(token),
      box: encryptSecret(token, current.key, randomBytes(12), associatedData(environmentId)),
    });
  }

  /** The token itself, for the gateway call; a token kept in clear (written before tokens were sealed) is returned as it is. */
  open(environmentId: string, stored: string): string {
    if (isRedactedPaymentToken(stored)) throw new Error('a read model’s redacted payment token cannot be charged: the token is in its stream’s events');
    const sealed = parseSealedPaymentToken(stored);
    if (!sealed) return stored;
    const key = this.keys().find((candidate) => candidate.id === sealed.keyId);
    if (!key) throw new Error(`a payment token was sealed with key "${sealed.keyId}", which PAYMENTS_ENCRYPTION_KEY does not hold`);
    return decryptSecret(sealed.box, key.key, associatedData(environmentId));
  }

  private keys() {
    const { keys } = this.config.paymentsEncryptionKeys;
    // Production without PAYMENTS_ENCRYPTION_KEY: startup refuses already (the credential vault); said again here.
    if (keys.length === 0) throw new Error(PAYMENTS_ENCRYPTION_KEY_REQUIRED);
    return keys;
  }
}

function associatedData(environmentId: string): string {
  return JSON.stringify(['payment-method-token/v1', environmentId]);
}
