import fc from 'fast-check';
import { CommandMetadata, DomainError, foldEvents } from '@billing/shared-kernel';
import { decideAdvanceSubscription, decideAdvanceTrial, decideBillDue } from './billing-decisions';
import { nextDue } from './billing';
import { ItemSchedule, SubscriptionBilled, SubscriptionEvent, SubscriptionItem } from './subscription-events';
import { Subscription, SubscriptionState, evolveSubscription, subscriptionEvolver } from './subscription';
import { decideCancelSubscription, decideEndTrial, decideReactivateSubscription } from './subscription-decisions';
import { SUBSCRIPTION_ID, created, item } from './subscription.arbitraries';
import { startOfDayIn } from './time-zone';

/**
 * The billing engine's loop, run at random monotonic clock readings, must bill
 * every item period exactly once: checked against a naive day-by-day
 * enumeration of the pieces (periods cut at term boundaries and the final day).
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const FULL_AMOUNT = 3100n;
const meta = (now: Date): CommandMetadata => ({ now, newId: () => 'unused' });

/** Runs the engine up to `now`: charge-free transitions, then each due billing, until nothing is due. */
function runEngine(start: SubscriptionState, now: Date, log: SubscriptionEvent[]): SubscriptionState {
  let state = start;
  const record = (events: SubscriptionEvent[]) => {
    log.push(...events);
    state = events.reduce(evolveSubscription, state);
  };
  for (;;) {
    record(decideAdvanceTrial({ subscriptionId: SUBSCRIPTION_ID }, state, meta(now)));
    record(decideAdvanceSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, meta(now)));
    const due = nextDue(state);
    if (due === null || due.billAt > now) return state;
    const amounts = Object.fromEntries(due.charges.map((charge) => [charge.itemId, FULL_AMOUNT]));
    record(decideBillDue({ subscriptionId: SUBSCRIPTION_ID, billAt: due.billAt, invoiceId: `inv-${log.length}`, amounts }, state, meta(now)));
    // The same billAt again, at once: refused.
    expect(() => decideBillDue({ subscriptionId: SUBSCRIPTION_ID, billAt: due.billAt, invoiceId: 'again', amounts }, state, meta(now))).toThrow(
      expect.objectContaining({ code: 'subscription-period-billed' }),
    );
  }
}

// ---------------------------------------------------------------- the naive oracle, on Date objects and one day at a time

const iso = (day: Date) => day.toISOString().slice(0, 10);
const plusDays = (date: string, days: number) => iso(new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS));

/** Whether a cycle of `count` `unit`s anchored on `anchor` begins on `day`: tested directly from the dates, day by day. */
function cycleBegins(anchor: Date, day: Date, count: number, unit: 'day' | 'week' | 'month' | 'year'): boolean {
  if (unit === 'day' || unit === 'week') return Math.round((day.getTime() - anchor.getTime()) / DAY_MS) % (count * (unit === 'week' ? 7 : 1)) === 0;
  const months = (day.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + day.getUTCMonth() - anchor.getUTCMonth();
  const lastOfMonth = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 0)).getUTCDate();
  return months >= 0 && months % (count * (unit === 'year' ? 12 : 1)) === 0 && day.getUTCDate() === Math.min(anchor.getUTCDate(), lastOfMonth);
}

interface Piece {
  readonly start: string;
  readonly end: string;
  readonly daysInFullPeriod: number;
}

/**
 * The pieces of a recurring item that start by `until`: a new piece begins at
 * every period start and every (renewed) term start; the final day, if any,
 * cuts the last one short.
 */
function naivePieces(subscription: Subscription, schedule: Extract<ItemSchedule, { purchase: 'recurring' }>, finalDay: string | null, until: string): Piece[] {
  const anchor = new Date(`${subscription.anchor}T00:00:00Z`);
  const length = subscription.autoRenewal ? subscription.termLength : null;
  const periodStarts: string[] = [];
  const pieceStarts: string[] = [];
  for (const day = new Date(anchor); iso(day) <= plusDays(until, 400); day.setUTCDate(day.getUTCDate() + 1)) {
    const periodBegins = cycleBegins(anchor, day, schedule.termCount, schedule.termUnit);
    if (periodBegins) periodStarts.push(iso(day));
    if (periodBegins || (length !== null && cycleBegins(anchor, day, length.count, length.unit))) pieceStarts.push(iso(day));
  }
  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < pieceStarts.length && pieceStarts[i] <= until && (finalDay === null || pieceStarts[i] <= finalDay); i++) {
    const start = pieceStarts[i];
    const end = finalDay !== null && finalDay < pieceStarts[i + 1] ? finalDay : plusDays(pieceStarts[i + 1], -1);
    const period = periodStarts.filter((periodStart) => periodStart <= start).length - 1;
    const daysInFullPeriod = Math.round((Date.parse(periodStarts[period + 1]) - Date.parse(periodStarts[period])) / DAY_MS);
    pieces.push({ start, end, daysInFullPeriod });
  }
  return pieces;
}

/** Half away from zero for a non-negative amount, on exact integers. */
const roundedShare = (amount: bigint, used: number, full: number) => (2n * amount * BigInt(used) + BigInt(full)) / (2n * BigInt(full));

// ---------------------------------------------------------------- generators

const ZONES = ['UTC', 'Europe/Helsinki', 'America/New_York', 'Pacific/Kiritimati', 'America/Havana'];
const scheduleArb: fc.Arbitrary<ItemSchedule> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<ItemSchedule>({ purchase: 'one_time' }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('day' as const, 'week' as const, 'month' as const, 'year' as const),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('advance' as const, 'arrears' as const),
      )
      .map(([termUnit, count, billingTiming]): ItemSchedule => ({
        purchase: 'recurring',
        termUnit,
        // Daily items over a long horizon only slow the run; years stay single so a period fits the oracle's walk.
        termCount: termUnit === 'day' ? count + 2 : termUnit === 'year' ? 1 : count,
        billingTiming,
      })),
  },
);
const subscriptionArb = fc.record({
  anchor: fc.integer({ min: 0, max: 4 * 365 }).map((offset) => plusDays('2024-01-01', offset)),
  termDays: fc.option(fc.integer({ min: 0, max: 200 }), { nil: null }),
  autoRenewal: fc.boolean(),
  timeZone: fc.constantFrom(...ZONES),
  schedules: fc.array(scheduleArb, { minLength: 1, maxLength: 3 }),
});
/** Clock readings: starting up to 10 days before the anchor, advancing by 1 hour to 60 days. */
const clockArb = fc.array(fc.integer({ min: 1, max: 60 * 24 }), { minLength: 1, maxLength: 12 });

type SubscriptionInput = typeof subscriptionArb extends fc.Arbitrary<infer T> ? T : never;

function createdFrom({ anchor, termDays, autoRenewal, timeZone, schedules }: SubscriptionInput) {
  const items: SubscriptionItem[] = schedules.map((schedule, i) => item(`item-${i}`, schedule));
  return created({ term: { start: anchor, end: termDays === null ? null : plusDays(anchor, termDays) }, autoRenewal, timeZone, items });
}

const billedEvents = (log: SubscriptionEvent[]) => log.filter((event): event is SubscriptionBilled => event.type === 'SubscriptionBilled');

// ---------------------------------------------------------------- properties

describe('billing (property)', () => {
  it('bills every piece of every item exactly once, at its billAt, compared with a naive enumeration', () => {
    fc.assert(
      fc.property(subscriptionArb, clockArb, (input, steps) => {
        const creation = createdFrom(input);
        let state = foldEvents(subscriptionEvolver, [creation]);
        const log: SubscriptionEvent[] = [];
        let now = Date.parse(`${input.anchor}T00:00:00Z`) - 10 * DAY_MS;
        for (const hours of steps) {
          now += hours * HOUR_MS;
          state = runEngine(state, new Date(now), log);
        }
        const subscription = foldEvents(subscriptionEvolver, [creation]) as Subscription;
        const { timeZone, term, autoRenewal } = subscription;
        const finalDay = term.end !== null && !autoRenewal ? term.end : null;
        // Every piece billed by now starts by the day after now's UTC date, whatever the zone.
        const until = plusDays(iso(new Date(now)), 2);
        const billed = billedEvents(log);

        // Events come in billAt order, one invoice per instant, never before the instant.
        const instants = billed.map((event) => event.data.billAt);
        expect([...instants].sort()).toEqual(instants);
        expect(new Set(instants).size).toBe(instants.length);
        for (const event of billed) expect(event.data.billedAt >= event.data.billAt).toBe(true);

        for (const { id, schedule } of subscription.items) {
          const actual = billed.flatMap((event) =>
            event.data.lines.filter((line) => line.itemId === id).map((line) => ({ ...line, billAt: event.data.billAt })),
          );
          if (schedule.purchase === 'one_time') {
            const at = startOfDayIn(subscription.anchor, timeZone);
            expect(actual.map((line) => line.billAt)).toEqual(at.getTime() <= now ? [at.toISOString()] : []);
            continue;
          }
          const expected = naivePieces(subscription, schedule, finalDay, until)
            .map((piece) => {
              const daysUsed = Math.round((Date.parse(piece.end) - Date.parse(piece.start)) / DAY_MS) + 1;
              const billAt = startOfDayIn(schedule.billingTiming === 'advance' ? piece.start : plusDays(piece.end, 1), timeZone);
              return {
                itemId: id,
                kind: schedule.billingTiming,
                period: { start: piece.start, end: piece.end },
                daysUsed,
                daysInFullPeriod: piece.daysInFullPeriod,
                fullAmount: Number(FULL_AMOUNT),
                amount: Number(roundedShare(FULL_AMOUNT, daysUsed, piece.daysInFullPeriod)),
                billAt: billAt.toISOString(),
              };
            })
            .filter((line) => Date.parse(line.billAt) <= now);
          expect(actual).toEqual(expected);
        }

        // The end is recorded once, the day after the final day, once that has come.
        const endedAt = finalDay === null ? null : startOfDayIn(plusDays(finalDay, 1), timeZone);
        const ends = log.filter((event) => event.type === 'SubscriptionEnded').map((event) => event.data);
        expect(ends).toEqual(endedAt !== null && endedAt.getTime() <= now ? [{ subscriptionId: SUBSCRIPTION_ID, endedAt: endedAt.toISOString() }] : []);
      }),
      { numRuns: 60 },
    );
  });

  it('with cancellations and reactivations in between: contiguous pieces, nothing past cancelAt, everything through it once ended', () => {
    const opArb = fc.record({ hours: fc.integer({ min: 1, max: 40 * 24 }), op: fc.constantFrom('none', 'none', 'cancel', 'reactivate') });
    fc.assert(
      fc.property(subscriptionArb, fc.array(opArb, { minLength: 1, maxLength: 12 }), (input, ops) => {
        const creation = createdFrom(input);
        let state = foldEvents(subscriptionEvolver, [creation]);
        const log: SubscriptionEvent[] = [creation];
        let now = Date.parse(`${input.anchor}T00:00:00Z`) - 10 * DAY_MS;
        for (const { hours, op } of ops) {
          now += hours * HOUR_MS;
          state = runEngine(state, new Date(now), log);
          if (op === 'none') continue;
          try {
            const decide = op === 'cancel' ? decideCancelSubscription : decideReactivateSubscription;
            const events: SubscriptionEvent[] = decide({ subscriptionId: SUBSCRIPTION_ID }, state, meta(new Date(now)));
            log.push(...events);
            state = events.reduce(evolveSubscription, state);
          } catch (error) {
            expect(error).toBeInstanceOf(DomainError);
            expect(['subscription-ended', 'subscription-not-cancelled']).toContain((error as DomainError).code);
          }
        }
        const final = state as Subscription;
        for (const { id, schedule } of final.items) {
          if (schedule.purchase === 'one_time') continue;
          const pieces = billedEvents(log).flatMap((event) => event.data.lines.filter((line) => line.itemId === id).map((line) => line.period!));
          // No gap, no overlap: each piece starts the day after the previous one ends.
          pieces.forEach((piece, i) => expect(piece.start).toBe(i === 0 ? final.anchor : plusDays(pieces[i - 1].end, 1)));
          const last = pieces.at(-1)?.end;
          if (final.cancelAt !== null && last !== undefined) expect(last <= final.cancelAt).toBe(true);
          if (final.status === 'ended') expect(last).toBe(final.cancelAt ?? final.term.end);
        }
        expect(log.filter((event) => event.type === 'SubscriptionEnded').length).toBe(final.status === 'ended' ? 1 : 0);
      }),
      { numRuns: 60 },
    );
  });

  it('a trial never bills a day inside it, whether it runs out, is ended early or the subscription is cancelled in it', () => {
    const opArb = fc.record({ hours: fc.integer({ min: 1, max: 20 * 24 }), op: fc.constantFrom('none', 'none', 'end-trial', 'cancel', 'reactivate') });
    fc.assert(
      fc.property(subscriptionArb, fc.integer({ min: 1, max: 60 }), fc.array(opArb, { minLength: 1, maxLength: 10 }), (input, trialDays, ops) => {
        const trialEnd = plusDays(input.anchor, trialDays);
        const { autoRenewal, timeZone, items } = createdFrom(input).data;
        const creation = created({
          autoRenewal,
          timeZone,
          items,
          // The trial ends within a termed subscription's first term (as decideCreateSubscription requires).
          term: { start: input.anchor, end: input.termDays === null ? null : plusDays(input.anchor, Math.max(input.termDays, trialDays)) },
          trialEnd,
        });
        let state = foldEvents(subscriptionEvolver, [creation]);
        const log: SubscriptionEvent[] = [creation];
        let now = Date.parse(`${input.anchor}T00:00:00Z`) - 5 * DAY_MS;
        for (const { hours, op } of ops) {
          now += hours * HOUR_MS;
          state = runEngine(state, new Date(now), log);
          if (op === 'none') continue;
          try {
            const decide = op === 'cancel' ? decideCancelSubscription : op === 'reactivate' ? decideReactivateSubscription : decideEndTrial;
            const events: SubscriptionEvent[] = decide({ subscriptionId: SUBSCRIPTION_ID }, state, meta(new Date(now)));
            log.push(...events);
            state = events.reduce(evolveSubscription, state);
          } catch (error) {
            expect(error).toBeInstanceOf(DomainError);
            expect(['subscription-ended', 'subscription-not-cancelled', 'subscription-not-trialing']).toContain((error as DomainError).code);
          }
        }
        state = runEngine(state, new Date(now + 90 * DAY_MS), log);
        const final = state as Subscription;
        // The trial's days: from its first day to the day before it ended (at its end, or early).
        const free = { start: input.anchor, end: plusDays(final.trial!.end, -1) };
        for (const event of billedEvents(log)) {
          expect(Date.parse(event.data.billAt) >= Date.parse(startOfDayIn(final.trial!.end, final.timeZone).toISOString())).toBe(true);
          for (const line of event.data.lines) if (line.period !== null) expect(line.period.start > free.end || line.period.end < free.start).toBe(true);
        }
        const trialEnds = log.filter((event) => event.type === 'SubscriptionTrialEnded');
        expect(trialEnds.length).toBeLessThanOrEqual(1);
        expect(log.filter((event) => event.type === 'SubscriptionTrialEndAnnounced').length).toBeLessThanOrEqual(1);
        // Billing with charges only ever happens once the trial is over.
        if (billedEvents(log).length > 0) expect(trialEnds.length).toBe(1);
      }),
      { numRuns: 80 },
    );
  });
});
