import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { foldEvents } from '@billing/shared-kernel';
import { decideAdvanceTrial } from './billing-decisions';
import { nextDue, nextTrialWorkAt, nextWorkAt, timelineAt } from './billing';
import { SubscriptionCancelled, SubscriptionEvent, SubscriptionTrialEndAnnounced, SubscriptionTrialEnded } from './subscription-events';
import { CreateSubscription } from './subscription-commands';
import { Subscription, nextTerm, subscriptionEvolver } from './subscription';
import { decideCancelSubscription, decideCreateSubscription, decideEndTrial, decideReactivateSubscription } from './subscription-decisions';
import { MONTHLY_ADVANCE, MONTHLY_ARREARS, SUBSCRIPTION_ID, created, item, priceFacts } from './subscription.arbitraries';

const spec = deciderSpec(subscriptionEvolver);
const START = '2026-01-01';
/** A 14-day trial from Jan 1: Jan 1 – Jan 14 free, Jan 15 the first day billed. */
const TRIAL_END = '2026-01-15';
const trialing = created({ term: { start: START, end: null }, trialEnd: TRIAL_END, items: [item('a', MONTHLY_ADVANCE), item('b', MONTHLY_ARREARS)] });
const announced = (announcedAt: string): SubscriptionTrialEndAnnounced => ({
  type: 'SubscriptionTrialEndAnnounced',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, trialEnd: TRIAL_END, announcedAt },
});
const trialEnded = (anchor: string, endedAt: string, early: boolean): SubscriptionTrialEnded => ({
  type: 'SubscriptionTrialEnded',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, anchor, early, endedAt },
});
const cancelledAt = (cancelAt: string): SubscriptionCancelled => ({
  type: 'SubscriptionCancelled',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, cancelAt, cancelledAt: '2026-01-05T10:00:00.000Z' },
});
const advance = (now: string) => (state: Parameters<typeof decideAdvanceTrial>[1]) =>
  decideAdvanceTrial({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(now));
const fold = (...events: SubscriptionEvent[]) => foldEvents(subscriptionEvolver, events) as Subscription;

describe('trials: decideCreateSubscription', () => {
  const monthly = priceFacts();
  const command = (overrides: Partial<CreateSubscription>): CreateSubscription => ({
    subscriptionId: SUBSCRIPTION_ID,
    handle: 'sub-0001',
    customer: { id: 'cust-1' },
    currency: 'EUR',
    term: { start: START, end: null },
    items: [{ priceId: monthly.id, price: monthly, quantity: 1 }],
    ...overrides,
  });
  const create = (overrides: Partial<CreateSubscription>) => (state: Parameters<typeof decideCreateSubscription>[1]) =>
    decideCreateSubscription(command(overrides), state, metadataAt('2026-01-01T09:00:00.000Z'));
  const invalidAt = (pointer: string) => ({ kind: 'validation', errors: [expect.objectContaining({ pointer })] });

  it('trialDays: the trial ends term.start + trialDays days later, which is the first day billed', () => {
    const [event] = create({ trialDays: 14 })({ status: 'none' });
    expect(event.data.trialEnd).toBe(TRIAL_END);
    const state = fold(event);
    expect(state).toMatchObject({ status: 'trialing', anchor: TRIAL_END, trial: { start: START, end: TRIAL_END, announcedAt: null, endedAt: null } });
  });

  it('trialEnd: taken as given', () => {
    expect(create({ trialEnd: '2026-03-01' })({ status: 'none' })[0].data.trialEnd).toBe('2026-03-01');
  });

  it('without a trial: no trialEnd member, active, anchored at the term start', () => {
    const [event] = create({})({ status: 'none' });
    expect(event.data).not.toHaveProperty('trialEnd');
    expect(fold(event)).toMatchObject({ status: 'active', anchor: START });
  });

  it.each([
    ['both trialEnd and trialDays', { trialEnd: '2026-01-15', trialDays: 14 }, '/trialDays'],
    ['trialDays 0', { trialDays: 0 }, '/trialDays'],
    ['trialDays 731', { trialDays: 731 }, '/trialDays'],
    ['trialDays not an integer', { trialDays: 1.5 }, '/trialDays'],
    ['trialEnd on the term start', { trialEnd: START }, '/trialEnd'],
    ['trialEnd not a date', { trialEnd: '2026-02-30' }, '/trialEnd'],
    ['trialEnd more than 730 days after the start', { trialEnd: '2028-01-02' }, '/trialEnd'],
    ['a trial past the first term', { term: { start: START, end: '2026-01-31' }, trialDays: 31 }, '/trialDays'],
  ])('refuses %s (422)', (_name, overrides, pointer) => {
    spec.given([]).when(create(overrides)).thenThrows(invalidAt(pointer));
  });

  it('accepts the bounds: 1 and 730 days, and a trial ending on the term’s last day', () => {
    expect(create({ trialDays: 1 })({ status: 'none' })[0].data.trialEnd).toBe('2026-01-02');
    expect(create({ trialDays: 730 })({ status: 'none' })[0].data.trialEnd).toBe('2028-01-01');
    expect(create({ term: { start: START, end: '2026-01-31' }, trialDays: 30 })({ status: 'none' })[0].data.trialEnd).toBe('2026-01-31');
  });
});

describe('trials: billing schedule', () => {
  it('advance items first bill at the trial end, which anchors their periods; arrears bill nothing for the trial days', () => {
    const state = fold(trialing);
    const due = nextDue(state)!;
    expect(due.billAt.toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(due.charges).toEqual([expect.objectContaining({ itemId: 'a', kind: 'advance', period: { start: TRIAL_END, end: '2026-02-14' }, daysUsed: 31 })]);
    const arrears = timelineAt(state, new Date('2026-01-05T00:00:00Z')).items.find((entry) => entry.itemId === 'b')!;
    expect(arrears).toEqual({ itemId: 'b', period: { start: TRIAL_END, end: '2026-02-14' }, billAt: new Date('2026-02-15T00:00:00Z') });
  });

  it('a termed subscription renews from its term start, not from the moved anchor', () => {
    const state = fold(created({ term: { start: START, end: '2026-12-31' }, autoRenewal: true, trialEnd: TRIAL_END }));
    expect(nextTerm(state)).toEqual({ start: '2027-01-01', end: '2027-12-31' });
  });

  it('status: trialing until the trial end by the clock, active after it even before the engine records it', () => {
    const state = fold(trialing);
    expect(timelineAt(state, new Date('2026-01-14T23:59:59Z')).status).toBe('trialing');
    expect(timelineAt(state, new Date('2026-01-15T00:00:00Z')).status).toBe('active');
  });
});

describe('trials: decideAdvanceTrial (the engine, on the environment’s clock)', () => {
  it('nothing before the notice; the notice is due 3 days before the end (nextWorkAt)', () => {
    expect(nextWorkAt(fold(trialing))?.toISOString()).toBe('2026-01-12T00:00:00.000Z');
    spec.given([trialing]).when(advance('2026-01-11T23:59:59.000Z')).then([]);
  });

  it('records the notice once, at its day', () => {
    spec
      .given([trialing])
      .when(advance('2026-01-12T00:00:00.000Z'))
      .then([announced('2026-01-12T00:00:00.000Z')]);
    spec
      .given([trialing, announced('2026-01-12T00:00:00.000Z')])
      .when(advance('2026-01-13T00:00:00.000Z'))
      .then([]);
    expect(nextTrialWorkAt(fold(trialing, announced('2026-01-12T00:00:00.000Z')))?.toISOString()).toBe('2026-01-15T00:00:00.000Z');
  });

  it('records the trial end at its day, then has no more trial work', () => {
    const given = [trialing, announced('2026-01-12T00:00:00.000Z')];
    spec
      .given(given)
      .when(advance('2026-01-15T00:00:00.000Z'))
      .then([trialEnded(TRIAL_END, '2026-01-15T00:00:00.000Z', false)]);
    const after = fold(...given, trialEnded(TRIAL_END, '2026-01-15T00:00:00.000Z', false));
    expect(after).toMatchObject({ status: 'active', anchor: TRIAL_END });
    expect(nextTrialWorkAt(after)).toBeNull();
  });

  it.each([
    ['exactly on the notice', '2026-01-12T00:00:00.000Z', [announced('2026-01-12T00:00:00.000Z')]],
    ['exactly on the end', '2026-01-15T00:00:00.000Z', [announced('2026-01-15T00:00:00.000Z'), trialEnded(TRIAL_END, '2026-01-15T00:00:00.000Z', false)]],
    ['past the end', '2026-02-01T00:00:00.000Z', [announced('2026-02-01T00:00:00.000Z'), trialEnded(TRIAL_END, '2026-01-15T00:00:00.000Z', false)]],
  ])('issue 41 #5: given no notice yet, when the clock lands %s, then every instant it reached is recorded, the notice first', (_, now, events) => {
    spec.given([trialing]).when(advance(now)).then(events);
    // What is left: the end after the notice alone; nothing once both are recorded.
    expect(nextTrialWorkAt(fold(trialing, ...events))?.toISOString() ?? null).toBe(events.length === 1 ? '2026-01-15T00:00:00.000Z' : null);
  });

  it('a trial shorter than 3 days is announced on its first day', () => {
    const short = created({ term: { start: START, end: null }, trialEnd: '2026-01-03' });
    expect(nextTrialWorkAt(fold(short))?.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('cancelled within the trial: no notice, no trial end (the subscription ends instead)', () => {
    const given = [trialing, cancelledAt('2026-01-14')];
    expect(nextTrialWorkAt(fold(...given))).toBeNull();
    spec.given(given).when(advance('2026-01-20T00:00:00.000Z')).then([]);
  });

  it('without a trial: nothing', () => {
    spec.given([created()]).when(advance('2026-03-01T00:00:00.000Z')).then([]);
  });
});

describe('trials: decideEndTrial', () => {
  const endTrial = (now: string) => (state: Parameters<typeof decideEndTrial>[1]) =>
    decideEndTrial({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(now));

  it('ends it now: today becomes the anchor, billed at once from today', () => {
    spec
      .given([trialing])
      .when(endTrial('2026-01-05T10:00:00.000Z'))
      .then([trialEnded('2026-01-05', '2026-01-05T10:00:00.000Z', true)]);
    const state = fold(trialing, trialEnded('2026-01-05', '2026-01-05T10:00:00.000Z', true));
    expect(state).toMatchObject({ status: 'active', anchor: '2026-01-05', trial: { start: START, end: '2026-01-05', endedAt: '2026-01-05T10:00:00.000Z' } });
    const due = nextDue(state)!;
    expect(due.billAt.toISOString()).toBe('2026-01-05T00:00:00.000Z');
    expect(due.charges[0].period).toEqual({ start: '2026-01-05', end: '2026-02-04' });
  });

  it('today is taken in the subscription’s time zone', () => {
    const helsinki = created({ term: { start: START, end: null }, trialEnd: TRIAL_END, timeZone: 'Europe/Helsinki' });
    spec
      .given([helsinki])
      .when(endTrial('2026-01-04T22:30:00.000Z'))
      .then([trialEnded('2026-01-05', '2026-01-04T22:30:00.000Z', true)]);
  });

  it('before the term starts: the anchor stays the term start', () => {
    const future = created({ term: { start: '2026-02-01', end: null }, trialEnd: '2026-02-15' });
    spec
      .given([future])
      .when(endTrial('2026-01-20T10:00:00.000Z'))
      .then([trialEnded('2026-02-01', '2026-01-20T10:00:00.000Z', true)]);
  });

  it('refuses a subscription without a running trial (409 subscription-not-trialing)', () => {
    spec.given([created()]).when(endTrial('2026-02-05T10:00:00.000Z')).thenThrows({ kind: 'conflict', code: 'subscription-not-trialing' });
    spec
      .given([trialing, trialEnded(TRIAL_END, '2026-01-15T00:00:00.000Z', false)])
      .when(endTrial('2026-01-16T10:00:00.000Z'))
      .thenThrows({ kind: 'conflict', code: 'subscription-not-trialing' });
    // Past the trial's end by the clock, before the engine records it.
    spec.given([trialing]).when(endTrial('2026-01-15T10:00:00.000Z')).thenThrows({ kind: 'conflict', code: 'subscription-not-trialing' });
  });

  it('refuses an ended subscription (409 subscription-ended) and an unknown one (404)', () => {
    spec
      .given([trialing, cancelledAt('2026-01-14')])
      .when(endTrial('2026-01-16T10:00:00.000Z'))
      .thenThrows({ kind: 'conflict', code: 'subscription-ended' });
    spec.given([]).when(endTrial('2026-01-16T10:00:00.000Z')).thenThrows({ kind: 'not_found' });
  });
});

describe('trials: cancel and reactivate', () => {
  it('cancelling within the trial ends service on its last day: nothing is ever billed', () => {
    spec
      .given([trialing])
      .when((state) => decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt('2026-01-05T10:00:00.000Z')))
      .then([{ ...cancelledAt('2026-01-14'), data: { ...cancelledAt('2026-01-14').data, cancelledAt: '2026-01-05T10:00:00.000Z' } }]);
    const due = nextDue(fold(trialing, cancelledAt('2026-01-14')))!;
    expect(due).toMatchObject({ charges: [], ends: true, billAt: new Date('2026-01-15T00:00:00Z') });
  });

  it('reactivating within the trial makes it trialing again', () => {
    const reactivated = decideReactivateSubscription(
      { subscriptionId: SUBSCRIPTION_ID },
      fold(trialing, cancelledAt('2026-01-14')),
      metadataAt('2026-01-06T00:00:00.000Z'),
    );
    expect(fold(trialing, cancelledAt('2026-01-14'), ...reactivated).status).toBe('trialing');
  });
});
