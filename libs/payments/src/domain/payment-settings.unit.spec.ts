import { decideUpdatePaymentSettings, PaymentSettingsUpdated, paymentSettingsEvolver } from './payment-settings';

const meta = { now: new Date('2026-02-01T00:00:00.000Z') } as Parameters<typeof decideUpdatePaymentSettings>[2];

describe('payment settings: payment terms (issue 20 #10)', () => {
  it('an environment without settings, or with settings written before payment terms existed, bills invoices due on their date', () => {
    expect(paymentSettingsEvolver.initialState().paymentTermsDays).toBe(0);
    const older: PaymentSettingsUpdated = { type: 'PaymentSettingsUpdated', schemaVersion: 1, data: { retryDays: [2], updatedAt: '2026-01-01T00:00:00.000Z' } };
    expect(paymentSettingsEvolver.evolve(paymentSettingsEvolver.initialState(), older)).toMatchObject({ retryDays: [2], paymentTermsDays: 0 });
  });

  it('records the terms with the schedule; the same settings again write nothing; absent terms are 0', () => {
    const [updated] = decideUpdatePaymentSettings({ retryDays: [1, 3], paymentTermsDays: 14 }, paymentSettingsEvolver.initialState(), meta);
    expect(updated.data).toEqual({ retryDays: [1, 3], paymentTermsDays: 14, afterLastFailure: 'leave_open', updatedAt: '2026-02-01T00:00:00.000Z' });
    const state = paymentSettingsEvolver.evolve(paymentSettingsEvolver.initialState(), updated);
    expect(decideUpdatePaymentSettings({ retryDays: [1, 3], paymentTermsDays: 14 }, state, meta)).toEqual([]);
    expect(decideUpdatePaymentSettings({ retryDays: [1, 3], paymentTermsDays: undefined }, state, meta)[0].data.paymentTermsDays).toBe(0);
  });

  it.each([-1, 366, 1.5, '14', null])('refuses paymentTermsDays %p at /paymentTermsDays', (paymentTermsDays) => {
    expect(() => decideUpdatePaymentSettings({ retryDays: [1], paymentTermsDays }, paymentSettingsEvolver.initialState(), meta)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/paymentTermsDays' })] }),
    );
  });
});

describe('payment settings: what follows the last failed try', () => {
  it('is leave_open without settings, with settings written before it existed, and when a PUT leaves it out', () => {
    expect(paymentSettingsEvolver.initialState().afterLastFailure).toBe('leave_open');
    const older: PaymentSettingsUpdated = { type: 'PaymentSettingsUpdated', schemaVersion: 1, data: { retryDays: [2], updatedAt: '2026-01-01T00:00:00.000Z' } };
    expect(paymentSettingsEvolver.evolve(paymentSettingsEvolver.initialState(), older).afterLastFailure).toBe('leave_open');
  });

  it.each(['mark_uncollectible', 'cancel_subscription', 'leave_open'])('records %s; the same settings again write nothing', (afterLastFailure) => {
    const [updated] = decideUpdatePaymentSettings({ retryDays: [1], paymentTermsDays: 0, afterLastFailure }, paymentSettingsEvolver.initialState(), meta);
    expect(updated.data.afterLastFailure).toBe(afterLastFailure);
    const state = paymentSettingsEvolver.evolve(paymentSettingsEvolver.initialState(), updated);
    expect(state.afterLastFailure).toBe(afterLastFailure);
    expect(decideUpdatePaymentSettings({ retryDays: [1], paymentTermsDays: 0, afterLastFailure }, state, meta)).toEqual([]);
  });

  it('a change of afterLastFailure alone is recorded; leaving it out of a PUT sets it back to leave_open', () => {
    const [first] = decideUpdatePaymentSettings(
      { retryDays: [1], paymentTermsDays: 0, afterLastFailure: 'mark_uncollectible' },
      paymentSettingsEvolver.initialState(),
      meta,
    );
    const state = paymentSettingsEvolver.evolve(paymentSettingsEvolver.initialState(), first);
    expect(decideUpdatePaymentSettings({ retryDays: [1], paymentTermsDays: 0 }, state, meta)[0].data.afterLastFailure).toBe('leave_open');
  });

  it.each(['void', '', 'LEAVE_OPEN', 1, null])('refuses afterLastFailure %p at /afterLastFailure', (afterLastFailure) => {
    expect(() => decideUpdatePaymentSettings({ retryDays: [1], paymentTermsDays: 0, afterLastFailure }, paymentSettingsEvolver.initialState(), meta)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/afterLastFailure' })] }),
    );
  });
});
