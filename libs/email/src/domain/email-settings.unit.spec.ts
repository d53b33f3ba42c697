import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { decideUpdateEmailSettings, DEFAULT_EMAIL_SETTINGS, EmailSettingsUpdated, emailSettingsEvolver } from './email-settings';

const T0 = '2026-02-01T00:00:00.000Z';
const meta = metadataAt(T0);
const spec = deciderSpec(emailSettingsEvolver);
const switches = { enabled: true, invoiceBooked: true, paymentSucceeded: false, paymentFailed: false, creditNoteBooked: true, trialWillEnd: false };
const updated = (data: Partial<EmailSettingsUpdated['data']> = {}): EmailSettingsUpdated => ({
  type: 'EmailSettingsUpdated',
  schemaVersion: 1,
  data: { ...switches, replyTo: null, bcc: null, updatedAt: T0, ...data },
});

describe('e-mail settings', () => {
  it('given none: the defaults (every kind of mail on)', () => {
    expect(emailSettingsEvolver.initialState()).toEqual(DEFAULT_EMAIL_SETTINGS);
    expect(DEFAULT_EMAIL_SETTINGS).toMatchObject({
      enabled: true,
      invoiceBooked: true,
      paymentSucceeded: true,
      paymentFailed: true,
      creditNoteBooked: true,
      trialWillEnd: true,
    });
  });

  it('given none, when replaced: one event with every member, absent addresses null', () => {
    spec
      .given([])
      .when((state) => decideUpdateEmailSettings(switches, state, meta))
      .then([updated()]);
  });

  it('given the same settings, when replaced again: nothing', () => {
    spec
      .given([updated({ bcc: 'audit@example.com' })])
      .when((state) => decideUpdateEmailSettings({ ...switches, bcc: 'audit@example.com', replyTo: null }, state, meta))
      .then([]);
  });

  it('given settings, when one switch changes: a new event', () => {
    spec
      .given([updated()])
      .when((state) => decideUpdateEmailSettings({ ...switches, enabled: false }, state, meta))
      .then([updated({ enabled: false })]);
  });

  it.each([
    [{ ...switches, enabled: 'yes' }, '/enabled'],
    [{ ...switches, trialWillEnd: undefined }, '/trialWillEnd'],
    [{ ...switches, replyTo: 'not an address' }, '/replyTo'],
    [{ ...switches, bcc: 42 }, '/bcc'],
    [{ ...switches, colour: 'red' }, '/colour'],
  ])('refuses %j at its pointer', (command, pointer) => {
    spec
      .given([])
      .when((state) => decideUpdateEmailSettings(command, state, meta))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer })] });
  });
});
