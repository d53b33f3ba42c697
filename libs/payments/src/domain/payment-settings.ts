import { CommandMetadata, DomainEvent, Evolver, ValidationError, deciderOf } from '@billing/shared-kernel';
import { AfterLastFailure, DEFAULT_AFTER_LAST_FAILURE, DEFAULT_RETRY_DAYS, validateAfterLastFailure, validateRetrySchedule } from './dunning';

/** An environment's payment settings: one stream per environment. */
export const PAYMENT_SETTINGS_STREAM_TYPE = 'payment-settings';

export type PaymentSettingsUpdated = DomainEvent<
  'PaymentSettingsUpdated',
  // paymentTermsDays and afterLastFailure are absent in events written before they existed: due on the invoice date, leave_open.
  { readonly retryDays: readonly number[]; readonly paymentTermsDays?: number; readonly afterLastFailure?: AfterLastFailure; readonly updatedAt: string }
>;

export interface PaymentSettings {
  /** Days after the first failed try at which a collection tries again. */
  readonly retryDays: readonly number[];
  /** Days from an invoice the billing engine makes to its due date (0: due on the invoice date). */
  readonly paymentTermsDays: number;
  /** What happens when a collection gives up (see AFTER_LAST_FAILURE). */
  readonly afterLastFailure: AfterLastFailure;
  readonly updatedAt: string | null;
}

export const PAYMENT_TERMS_MAX_DAYS = 365;

export const paymentSettingsEvolver: Evolver<PaymentSettings, PaymentSettingsUpdated> = {
  initialState: () => ({ retryDays: DEFAULT_RETRY_DAYS, paymentTermsDays: 0, afterLastFailure: DEFAULT_AFTER_LAST_FAILURE, updatedAt: null }),
  // Another event type (from a newer release) carries no settings: they stay as they were.
  evolve: (state, event) =>
    event.type !== 'PaymentSettingsUpdated'
      ? state
      : {
          retryDays: event.data.retryDays,
          paymentTermsDays: event.data.paymentTermsDays ?? 0,
          afterLastFailure: event.data.afterLastFailure ?? DEFAULT_AFTER_LAST_FAILURE,
          updatedAt: event.data.updatedAt,
        },
};

/**
 * Replaces the settings (422s at /retryDays/<i>, /paymentTermsDays, /afterLastFailure; absent terms are 0, an absent
 * afterLastFailure leave_open); the same settings again write nothing.
 */
export function decideUpdatePaymentSettings(
  command: { retryDays: unknown; paymentTermsDays: unknown; afterLastFailure?: unknown },
  state: PaymentSettings,
  meta: CommandMetadata,
): PaymentSettingsUpdated[] {
  const retryDays = validateRetrySchedule(command.retryDays);
  const paymentTermsDays = command.paymentTermsDays === undefined ? 0 : command.paymentTermsDays;
  if (typeof paymentTermsDays !== 'number' || !Number.isInteger(paymentTermsDays) || paymentTermsDays < 0 || paymentTermsDays > PAYMENT_TERMS_MAX_DAYS) {
    throw ValidationError.at('/paymentTermsDays', `must be a whole number of days from 0 to ${PAYMENT_TERMS_MAX_DAYS}`);
  }
  const afterLastFailure = validateAfterLastFailure(command.afterLastFailure);
  const unchanged =
    retryDays.join(',') === state.retryDays.join(',') && paymentTermsDays === state.paymentTermsDays && afterLastFailure === state.afterLastFailure;
  if (state.updatedAt !== null && unchanged) return [];
  return [{ type: 'PaymentSettingsUpdated', schemaVersion: 1, data: { retryDays, paymentTermsDays, afterLastFailure, updatedAt: meta.now.toISOString() } }];
}

/** The payment settings aggregate as one value: what it folds (paymentSettingsEvolver) and what each of its commands decides. */
export const paymentSettingsDecider = deciderOf(paymentSettingsEvolver, { UpdatePaymentSettings: decideUpdatePaymentSettings });
