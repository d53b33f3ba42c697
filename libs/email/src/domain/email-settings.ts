import { CommandMetadata, DomainEvent, Evolver, isEmailAddress, ValidationError, deciderOf } from '@billing/shared-kernel';

/** An environment's e-mail settings: one stream per environment. */
export const EMAIL_SETTINGS_STREAM_TYPE = 'email-settings';

/** The kinds of mail, each switched on or off by its setting. */
export const EMAIL_KINDS = ['invoiceBooked', 'paymentSucceeded', 'paymentFailed', 'creditNoteBooked', 'trialWillEnd'] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

export interface EmailSettings extends Readonly<Record<EmailKind, boolean>> {
  /** The master switch: off, nothing is queued for the environment (a POST /invoices/{id}/send still is). */
  readonly enabled: boolean;
  readonly replyTo: string | null;
  readonly bcc: string | null;
  readonly updatedAt: string | null;
}

export type EmailSettingsUpdated = DomainEvent<'EmailSettingsUpdated', Omit<EmailSettings, 'updatedAt'> & { readonly updatedAt: string }>;

/** Until changed: every kind of mail is sent (each can be switched off; README, "E-mail"). */
export const DEFAULT_EMAIL_SETTINGS: EmailSettings = {
  enabled: true,
  invoiceBooked: true,
  paymentSucceeded: true,
  paymentFailed: true,
  creditNoteBooked: true,
  trialWillEnd: true,
  replyTo: null,
  bcc: null,
  updatedAt: null,
};

export const emailSettingsEvolver: Evolver<EmailSettings, EmailSettingsUpdated> = {
  initialState: () => DEFAULT_EMAIL_SETTINGS,
  // Another event type (from a newer release) carries no settings: they stay as they were.
  evolve: (state, event) => (event.type === 'EmailSettingsUpdated' ? { ...event.data } : state),
};

export const EMAIL_SETTINGS_MEMBERS: readonly string[] = ['enabled', ...EMAIL_KINDS, 'replyTo', 'bcc'];

/**
 * Replaces the settings (a PUT): every switch required (422 at its pointer), replyTo and bcc an address or null
 * (absent: null). The same settings again write nothing.
 */
export function decideUpdateEmailSettings(command: Readonly<Record<string, unknown>>, state: EmailSettings, meta: CommandMetadata): EmailSettingsUpdated[] {
  const unknown = Object.keys(command).filter((key) => !EMAIL_SETTINGS_MEMBERS.includes(key));
  if (unknown.length > 0) throw ValidationError.at(`/${unknown[0]}`, 'is not a member of the e-mail settings');
  const flag = (name: string): boolean => {
    const value = command[name];
    if (typeof value !== 'boolean') throw ValidationError.at(`/${name}`, 'must be true or false');
    return value;
  };
  const address = (name: string): string | null => {
    const value = command[name];
    if (value === undefined || value === null) return null;
    if (!isEmailAddress(value)) throw ValidationError.at(`/${name}`, 'must be an e-mail address such as billing@example.com, or null');
    return value;
  };
  const next = {
    enabled: flag('enabled'),
    invoiceBooked: flag('invoiceBooked'),
    paymentSucceeded: flag('paymentSucceeded'),
    paymentFailed: flag('paymentFailed'),
    creditNoteBooked: flag('creditNoteBooked'),
    trialWillEnd: flag('trialWillEnd'),
    replyTo: address('replyTo'),
    bcc: address('bcc'),
  };
  const unchanged = state.updatedAt !== null && (Object.keys(next) as (keyof typeof next)[]).every((key) => next[key] === state[key]);
  if (unchanged) return [];
  return [{ type: 'EmailSettingsUpdated', schemaVersion: 1, data: { ...next, updatedAt: meta.now.toISOString() } }];
}

/** The email settings aggregate as one value: what it folds (emailSettingsEvolver) and what each of its commands decides. */
export const emailSettingsDecider = deciderOf(emailSettingsEvolver, { UpdateEmailSettings: decideUpdateEmailSettings });
