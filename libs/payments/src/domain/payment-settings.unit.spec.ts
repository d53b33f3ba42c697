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
    expect(updated.data).toEqual({ retryDays: [1, 3], paymentTermsDays: 14, updatedAt: '2026-02-01T00:00:00.000Z' });
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
