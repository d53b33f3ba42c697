import { deciderSpec, metadataAt } from '@billing/testing/decider-spec';
import { foldEvents } from '@billing/shared-kernel';
import { finalBilling, proratedItem } from './billing-decisions';
import { nextDue, nextWorkAt, timelineAt, upcomingBilling } from './billing';
import { decideAdvancePause, decidePauseSubscription, decideResumeSubscription } from './pause';
import { ProrationLine, SubscriptionBilled, SubscriptionCancelled, SubscriptionEvent, SubscriptionPaused, SubscriptionResumed } from './subscription-events';
import { Subscription, subscriptionEvolver } from './subscription';
import { decideCancelSubscription, decideReactivateSubscription } from './subscription-decisions';
import { MONTHLY_ADVANCE, MONTHLY_ARREARS, ONE_TIME, SUBSCRIPTION_ID, created, item, runEngineTo } from './subscription.arbitraries';

const spec = deciderSpec(subscriptionEvolver);
const fold = (...events: SubscriptionEvent[]) => foldEvents(subscriptionEvolver, events) as Subscription;
/** From Jan 1 (UTC): a 31.00 monthly advance item `a` and a 31.00 monthly arrears item `b`; January's advance billed on Jan 1. */
const both = created({ term: { start: '2026-01-01', end: null }, items: [item('a', MONTHLY_ADVANCE), item('b', MONTHLY_ARREARS)] });
const january = runEngineTo([both], '2026-01-01T00:00:05.000Z');
const NOW = '2026-01-10T10:00:00.000Z';

const pause =
  (resumeAt?: unknown, now = NOW) =>
  (state: Parameters<typeof decidePauseSubscription>[1]) =>
    decidePauseSubscription({ subscriptionId: SUBSCRIPTION_ID, resumeAt }, state, metadataAt(now));
const resume = (now: string) => (state: Parameters<typeof decideResumeSubscription>[1]) =>
  decideResumeSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(now));
const advance = (now: string) => (state: Parameters<typeof decideAdvancePause>[1]) =>
  decideAdvancePause({ subscriptionId: SUBSCRIPTION_ID }, state, metadataAt(now));

/** A pause's credit for item `a` (31.00 a month). */
const credit = (period: { start: string; end: string }, days: number, daysInFullPeriod: number, amount: number): ProrationLine => ({
  itemId: 'a',
  kind: 'credit',
  reason: 'pause',
  item: proratedItem(item('a', MONTHLY_ADVANCE)),
  period,
  days,
  daysInFullPeriod,
  fullAmount: 3100,
  amount,
});
/** Paused on Jan 10 (Jan 10 still served): January's advance credited for Jan 11–31, 3100 × 21 ÷ 31 = 2100. */
const pausedOnJan10 = (resumeAt: string | null): SubscriptionPaused => ({
  type: 'SubscriptionPaused',
  schemaVersion: 1,
  data: {
    subscriptionId: SUBSCRIPTION_ID,
    start: '2026-01-11',
    resumeAt,
    prorations: [credit({ start: '2026-01-11', end: '2026-01-31' }, 21, 31, 2100)],
    pausedAt: NOW,
  },
});
const resumed = (resumeDay: string, resumedAt: string, automatic: boolean): SubscriptionResumed => ({
  type: 'SubscriptionResumed',
  schemaVersion: 1,
  data: { subscriptionId: SUBSCRIPTION_ID, resumeDay, automatic, resumedAt },
});
/** The billings of the events: per line [billAt, item, period start, period end, amount]. */
const billed = (events: readonly SubscriptionEvent[]) =>
  events
    .filter((event): event is SubscriptionBilled => event.type === 'SubscriptionBilled')
    .flatMap(({ data }) => data.lines.map((line) => [data.billAt.slice(0, 10), line.itemId, line.period?.start, line.period?.end, line.amount]));

describe('pause: decidePauseSubscription', () => {
  it('pauses after today: the advance-billed days after it credited pro rata, the piece billed in advance now ends today', () => {
    spec
      .given([both, ...january])
      .when(pause())
      .then([pausedOnJan10(null)]);
    const state = fold(both, ...january, pausedOnJan10(null));
    expect(state).toMatchObject({ status: 'paused', pause: { pausedAt: NOW, start: '2026-01-11', resumeAt: null } });
    expect(state.advanceBilled!.a.period).toEqual({ start: '2026-01-01', end: '2026-01-10' });
  });

  it('with resumeAt: recorded as given; today is the subscription’s local date', () => {
    const [event] = pause('2026-01-20')(fold(both, ...january));
    expect(event.data.resumeAt).toBe('2026-01-20');
    const helsinki = created({ term: { start: '2026-01-01', end: null }, timeZone: 'Europe/Helsinki' });
    // 22:30 UTC on Jan 9 is Jan 10 in Helsinki: Jan 10 is the pause day.
    const [local] = pause(undefined, '2026-01-09T22:30:00.000Z')(fold(helsinki));
    expect(local.data.start).toBe('2026-01-11');
  });

  it('arrears: the days used up to the pause day are billed the day after it (a piece cut short), nothing during the pause', () => {
    const events = runEngineTo([both, ...january, pausedOnJan10(null)], '2026-03-01T00:00:00.000Z');
    // 3100 × 10 ÷ 31 = 1000 for Jan 1–10, billed at Jan 11 00:00; then nothing while paused.
    expect(billed(events)).toEqual([
      ['2026-01-01', 'a', '2026-01-01', '2026-01-31', 3100],
      ['2026-01-11', 'b', '2026-01-01', '2026-01-10', 1000],
    ]);
    const state = foldEvents(subscriptionEvolver, events);
    expect(nextDue(state)).toBeNull();
    expect(nextWorkAt(state)).toBeNull();
  });

  it('the credit waits for the next invoice the engine books: the pre-pause arrears’ (Jan 11), or without arrears the resume’s', () => {
    const events = runEngineTo([both, ...january, pausedOnJan10(null)], '2026-01-11T00:00:00.000Z');
    const [, arrears] = events.filter((event): event is SubscriptionBilled => event.type === 'SubscriptionBilled');
    expect(arrears.data).toMatchObject({ billAt: '2026-01-11T00:00:00.000Z', prorations: pausedOnJan10(null).data.prorations });
    expect(fold(...events).pendingProrations).toEqual([]);
    const advanceOnly = created({ term: { start: '2026-01-01', end: null }, items: [item('a', MONTHLY_ADVANCE)] });
    const paused = runEngineTo(
      [advanceOnly, ...runEngineTo([advanceOnly], '2026-01-01T00:00:00.000Z').slice(1), pausedOnJan10('2026-01-20')],
      '2026-01-19T00:00:00.000Z',
    );
    expect(fold(...paused).pendingProrations).toEqual(pausedOnJan10(null).data.prorations);
    const resumedBilling = runEngineTo(paused, '2026-01-20T00:00:00.000Z').at(-1) as SubscriptionBilled;
    // The resume's invoice: Jan 20–31 charged (1200) and Jan 11–31 credited (−2100).
    expect(resumedBilling.data).toMatchObject({
      billAt: '2026-01-20T00:00:00.000Z',
      lines: [{ amount: 1200 }],
      prorations: pausedOnJan10(null).data.prorations,
    });
  });

  it('a pause and a billing instant that coincide: what the engine billed is credited; what it had yet to bill is cut at the pause day', () => {
    const atFeb1 = '2026-02-01T00:00:00.000Z';
    // Billed first (the engine was on time): February's advance credited for Feb 2–28, 3100 × 27 ÷ 28 = 2989.29 → 2989.
    const billedFirst = runEngineTo([both, ...january], atFeb1);
    const [afterBilling] = pause(undefined, atFeb1)(fold(both, ...billedFirst));
    expect(afterBilling.data.prorations).toEqual([credit({ start: '2026-02-02', end: '2026-02-28' }, 27, 28, 2989)]);
    // Not billed yet: no credit; the engine then bills February's advance for Feb 1 only, 3100 × 1 ÷ 28 = 110.71 → 111 (= 3100 − 2989).
    const [beforeBilling] = pause(undefined, atFeb1)(fold(both, ...january));
    expect(beforeBilling.data.prorations).toEqual([]);
    const events = runEngineTo([both, ...january, beforeBilling], '2026-03-01T00:00:00.000Z');
    expect(billed(events).slice(1)).toEqual([
      ['2026-02-01', 'a', '2026-02-01', '2026-02-01', 111],
      ['2026-02-01', 'b', '2026-01-01', '2026-01-31', 3100],
      ['2026-02-02', 'b', '2026-02-01', '2026-02-01', 111],
    ]);
  });

  it.each([
    ['not a date', '2026-02-30'],
    ['not a string', 20260120],
    ['today', '2026-01-10'],
    ['in the past', '2025-12-31'],
  ])('refuses a resumeAt %s (422 at /resumeAt)', (_name, resumeAt) => {
    spec
      .given([both, ...january])
      .when(pause(resumeAt))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/resumeAt' })] });
  });

  it('refuses (409 subscription-billing-pending) a pause decided at a time the engine has billed past (the clock moved on while it ran)', () => {
    // Read at Jan 10, decided after the engine billed Feb 1: a pause from Jan 11 would leave January's days billed and credit February's.
    spec.given(runEngineTo(january, '2026-02-01T00:00:00.000Z')).when(pause()).thenThrows({ kind: 'conflict', code: 'subscription-billing-pending' });
  });

  it('refuses a resumeAt after the last day of service (422)', () => {
    const cancelled = decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID }, fold(both, ...january), metadataAt(NOW));
    expect(cancelled[0].data.cancelAt).toBe('2026-01-31');
    spec
      .given([both, ...january, ...cancelled])
      .when(pause('2026-02-01'))
      .thenThrows({ kind: 'validation', errors: [expect.objectContaining({ pointer: '/resumeAt' })] });
    expect(pause('2026-01-31')(fold(both, ...january, ...cancelled))[0].data.resumeAt).toBe('2026-01-31');
  });

  it('refuses (409) a paused subscription, one in its free trial, an ended one; 404 an unknown one', () => {
    spec
      .given([both, ...january, pausedOnJan10(null)])
      .when(pause(undefined, '2026-01-12T00:00:00.000Z'))
      .thenThrows({ kind: 'conflict', code: 'subscription-paused' });
    const trialing = created({ term: { start: '2026-01-01', end: null }, trialEnd: '2026-01-15' });
    spec.given([trialing]).when(pause()).thenThrows({ kind: 'conflict', code: 'subscription-trialing' });
    const cancelledJan5: SubscriptionCancelled = {
      type: 'SubscriptionCancelled',
      schemaVersion: 1,
      data: { subscriptionId: SUBSCRIPTION_ID, cancelAt: '2026-01-05', cancelledAt: '2026-01-05T10:00:00.000Z', at: 'now' },
    };
    spec
      .given([both, ...january, cancelledJan5])
      .when(pause())
      .thenThrows({ kind: 'conflict', code: 'subscription-ended' });
    spec.given([]).when(pause()).thenThrows({ kind: 'not_found' });
  });
});

describe('pause: resume (decideResumeSubscription, decideAdvancePause)', () => {
  it('the engine resumes at resumeAt: the current period charged pro rata from the resume day, the anchor kept', () => {
    const paused = runEngineTo([both, ...january, pausedOnJan10('2026-01-20')], '2026-01-11T00:00:00.000Z');
    const state = foldEvents(subscriptionEvolver, paused);
    expect(nextWorkAt(state)?.toISOString()).toBe('2026-01-20T00:00:00.000Z');
    spec.given(paused).when(advance('2026-01-19T23:59:59.000Z')).then([]);
    spec
      .given(paused)
      .when(advance('2026-01-20T00:00:00.000Z'))
      .then([resumed('2026-01-20', '2026-01-20T00:00:00.000Z', true)]);
    const events = runEngineTo(paused, '2026-03-01T00:00:00.000Z');
    // Jan 20–31 = 12 of 31 days: 3100 × 12 ÷ 31 = 1200 (advance at Jan 20, arrears at Feb 1); then whole months from the anchor day.
    expect(billed(events).slice(2)).toEqual([
      ['2026-01-20', 'a', '2026-01-20', '2026-01-31', 1200],
      ['2026-02-01', 'a', '2026-02-01', '2026-02-28', 3100],
      ['2026-02-01', 'b', '2026-01-20', '2026-01-31', 1200],
      ['2026-03-01', 'a', '2026-03-01', '2026-03-31', 3100],
      ['2026-03-01', 'b', '2026-02-01', '2026-02-28', 3100],
    ]);
    expect(fold(...events)).toMatchObject({ status: 'active', pause: null, pausedDays: [{ start: '2026-01-11', end: '2026-01-19' }] });
  });

  it('the resume waits for what falls due before it (the pre-pause arrears) and goes before what falls due at its instant', () => {
    // Arrears of Jan 1–10 due at Jan 11 00:00, not billed yet: the resume at Jan 20 waits for it.
    spec
      .given([both, ...january, pausedOnJan10('2026-01-20')])
      .when(advance('2026-01-25T00:00:00.000Z'))
      .then([]);
    // Resumed at Feb 1, the very instant a period starts: the full February is billed once.
    const events = runEngineTo([both, ...january, pausedOnJan10('2026-02-01')], '2026-02-01T00:00:00.000Z');
    expect(billed(events).slice(2)).toEqual([['2026-02-01', 'a', '2026-02-01', '2026-02-28', 3100]]);
  });

  it('by hand: from today; on the pause day itself no day is paused (the charge equals the credit)', () => {
    const paused = [both, ...january, pausedOnJan10(null)];
    spec
      .given(paused)
      .when(resume('2026-01-15T09:00:00.000Z'))
      .then([resumed('2026-01-15', '2026-01-15T09:00:00.000Z', false)]);
    spec
      .given(paused)
      .when(resume('2026-01-10T18:00:00.000Z'))
      .then([resumed('2026-01-11', '2026-01-10T18:00:00.000Z', false)]);
    const events = runEngineTo([...paused, resumed('2026-01-11', '2026-01-10T18:00:00.000Z', false)], '2026-01-11T00:00:00.000Z');
    expect(billed(events).slice(1)).toEqual([['2026-01-11', 'a', '2026-01-11', '2026-01-31', 2100]]);
    expect(fold(...events).pausedDays).toEqual([]);
  });

  it('by hand once resumeAt has come (before the engine got to it): the same resume as the engine’s', () => {
    spec
      .given([both, ...january, pausedOnJan10('2026-01-20')])
      .when(resume('2026-01-22T09:00:00.000Z'))
      .then([resumed('2026-01-20', '2026-01-22T09:00:00.000Z', false)]);
  });

  it('paused before its term starts: the one-time charge and the first period wait for the first day served', () => {
    const future = created({ term: { start: '2026-02-01', end: null }, items: [item('a', MONTHLY_ADVANCE), item('o', ONE_TIME)] });
    const [paused] = pause('2026-02-10')(fold(future));
    expect(paused.data).toMatchObject({ start: '2026-01-11', prorations: [] });
    const events = runEngineTo([future, paused], '2026-03-01T00:00:00.000Z');
    // Feb 10–28 is 19 of 28 days: 3100 × 19 ÷ 28 = 2103.57 → 2104; the one-time fee on Feb 10; March whole from the anchor day.
    expect(billed(events)).toEqual([
      ['2026-02-10', 'a', '2026-02-10', '2026-02-28', 2104],
      ['2026-02-10', 'o', undefined, undefined, 3100],
      ['2026-03-01', 'a', '2026-03-01', '2026-03-31', 3100],
    ]);
  });

  it('refuses (409) a subscription that is not paused, or ended', () => {
    spec
      .given([both, ...january])
      .when(resume(NOW))
      .thenThrows({ kind: 'conflict', code: 'subscription-not-paused' });
    const cancelled = decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID }, fold(both, ...january, pausedOnJan10(null)), metadataAt(NOW));
    spec
      .given([both, ...january, pausedOnJan10(null), ...cancelled])
      .when(resume('2026-02-01T00:00:00.000Z'))
      .thenThrows({ kind: 'conflict', code: 'subscription-ended' });
  });
});

describe('pause: with cancellation, the view and the preview', () => {
  it('cancelled while paused: stays paused with its cancelAt, cancelled again on resume; reactivated: paused', () => {
    const paused = [both, ...january, pausedOnJan10(null)];
    const cancelled = decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID }, fold(...paused), metadataAt('2026-01-12T00:00:00.000Z'));
    expect(fold(...paused, ...cancelled)).toMatchObject({ status: 'paused', cancelAt: '2026-01-31' });
    // Cancelling again answers the same (nothing new).
    expect(decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID }, fold(...paused, ...cancelled), metadataAt('2026-01-13T00:00:00.000Z'))).toEqual([]);
    const back = decideResumeSubscription({ subscriptionId: SUBSCRIPTION_ID }, fold(...paused, ...cancelled), metadataAt('2026-01-15T00:00:00.000Z'));
    expect(fold(...paused, ...cancelled, ...back).status).toBe('cancelled');
    const reactivated = decideReactivateSubscription(
      { subscriptionId: SUBSCRIPTION_ID },
      fold(...paused, ...cancelled),
      metadataAt('2026-01-15T00:00:00.000Z'),
    );
    expect(fold(...paused, ...cancelled, ...reactivated)).toMatchObject({ status: 'paused', cancelAt: null });
  });

  it('a cancel now after a pause gives no credit twice', () => {
    const paused = runEngineTo([both, ...january, pausedOnJan10(null)], '2026-01-12T00:00:00.000Z');
    const cancelled = decideCancelSubscription({ subscriptionId: SUBSCRIPTION_ID, at: 'now' }, fold(...paused), metadataAt('2026-01-12T00:00:00.000Z'));
    expect(finalBilling(fold(...paused, ...cancelled), new Date('2026-01-12T00:00:00.000Z'), true).prorations).toEqual([]);
  });

  it('timeline: paused until resumeAt by the clock (active from it even before the engine records it); items show the resume’s billAt', () => {
    const state = fold(both, ...january, pausedOnJan10('2026-01-20'));
    const during = timelineAt(state, new Date('2026-01-15T00:00:00.000Z'));
    expect(during.status).toBe('paused');
    expect(during.items.map((entry) => entry.billAt?.toISOString())).toEqual(['2026-01-20T00:00:00.000Z', '2026-01-11T00:00:00.000Z']);
    expect(timelineAt(state, new Date('2026-01-20T00:00:00.000Z')).status).toBe('active');
    expect(timelineAt(fold(both, ...january, pausedOnJan10(null)), new Date('2026-02-15T00:00:00.000Z')).items[0].billAt).toBeNull();
  });

  it('the upcoming billing of a paused subscription is the one its resume brings (what the engine will bill)', () => {
    const paused = runEngineTo([both, ...january, pausedOnJan10('2026-01-20')], '2026-01-11T00:00:00.000Z');
    const upcoming = upcomingBilling(foldEvents(subscriptionEvolver, paused))!;
    expect(upcoming.due.billAt.toISOString()).toBe('2026-01-20T00:00:00.000Z');
    expect(upcoming.due.charges.map((charge) => [charge.itemId, charge.period])).toEqual([['a', { start: '2026-01-20', end: '2026-01-31' }]]);
    expect(upcomingBilling(foldEvents(subscriptionEvolver, runEngineTo([both, ...january, pausedOnJan10(null)], '2026-01-11T00:00:00.000Z')))).toBeNull();
  });
});
