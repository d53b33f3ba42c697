import { CommandMetadata, DomainEvent, Evolver } from '@billing/shared-kernel';
import { DEFAULT_RETRY_DAYS, validateRetrySchedule } from './dunning';

/** An environment's payment settings: one stream per environment. */
export const PAYMENT_SETTINGS_STREAM_TYPE = 'payment-settings';

export type PaymentSettingsUpdated = DomainEvent<'PaymentSettingsUpdated', { readonly retryDays: readonly number[]; readonly updatedAt: string }>;

export interface PaymentSettings {
  /** Days after the first failed try at which a collection tries again. */
  readonly retryDays: readonly number[];
  readonly updatedAt: string | null;
}

export const paymentSettingsEvolver: Evolver<PaymentSettings, PaymentSettingsUpdated> = {
  initialState: () => ({ retryDays: DEFAULT_RETRY_DAYS, updatedAt: null }),
  evolve: (_state, event) => ({ retryDays: event.data.retryDays, updatedAt: event.data.updatedAt }),
};

/** Replaces the retry schedule (422s at /retryDays/<i>); the same schedule again writes nothing. */
export function decideUpdatePaymentSettings(command: { retryDays: unknown }, state: PaymentSettings, meta: CommandMetadata): PaymentSettingsUpdated[] {
  const retryDays = validateRetrySchedule(command.retryDays);
  if (state.updatedAt !== null && retryDays.join(',') === state.retryDays.join(',')) return [];
  return [{ type: 'PaymentSettingsUpdated', schemaVersion: 1, data: { retryDays, updatedAt: meta.now.toISOString() } }];
}
