import { CustomerDiscount, CustomerEvent } from '@billing/invoicing';
import { evolveTrackedCustomer, NO_CUSTOMER } from './tracked-customer';

const event = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as CustomerEvent;
const discount = { id: 'd1', percentOff: 20, duration: 'forever', start: '2026-02-10', end: null, endedAt: null } as unknown as CustomerDiscount;

describe('evolveTrackedCustomer', () => {
  it('given a customer created and updated, then its time zone; an update that keeps it changes nothing (the same object)', () => {
    const created = evolveTrackedCustomer(NO_CUSTOMER, event('CustomerCreated', { timeZone: 'Europe/Helsinki', name: 'Acme' }));
    expect(created).toEqual({ timeZone: 'Europe/Helsinki', discounts: [] });
    expect(evolveTrackedCustomer(created, event('CustomerUpdated', { timeZone: 'Europe/Helsinki', name: 'Acme Oy' }))).toBe(created);
    expect(evolveTrackedCustomer(created, event('CustomerUpdated', { timeZone: 'America/New_York' }))).toEqual({ timeZone: 'America/New_York', discounts: [] });
  });

  it('given a discount applied then ended, then it is kept with its end (invoicing’s fold of discounts)', () => {
    const applied = evolveTrackedCustomer(NO_CUSTOMER, event('CustomerDiscountApplied', { customerId: 'c', discount, appliedAt: '2026-02-10T08:00:00.000Z' }));
    expect(applied.discounts).toEqual([discount]);
    const ended = evolveTrackedCustomer(
      applied,
      event('CustomerDiscountEnded', {
        customerId: 'c',
        discountId: 'd1',
        reason: 'removed',
        invoiceId: null,
        end: '2026-03-10',
        endedAt: '2026-03-10T08:00:00.000Z',
      }),
    );
    expect(ended.discounts).toEqual([{ ...discount, end: '2026-03-10', endedAt: '2026-03-10T08:00:00.000Z' }]);
  });

  it('given a balance adjustment or an archive, then the same object (no MRR to work out again)', () => {
    expect(evolveTrackedCustomer(NO_CUSTOMER, event('CustomerBalanceAdjusted', { currency: 'EUR', balanceAfter: -500 }))).toBe(NO_CUSTOMER);
    expect(evolveTrackedCustomer(NO_CUSTOMER, event('CustomerArchived', { archivedAt: '2026-03-01T00:00:00.000Z' }))).toBe(NO_CUSTOMER);
  });
});
