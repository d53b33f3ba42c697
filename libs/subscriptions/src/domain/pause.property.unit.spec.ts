import fc from 'fast-check';
import { DomainError, addDays, foldEvents } from '@billing/shared-kernel';
import { metadataAt } from '@billing/testing/decider-spec';
import { daysInclusive } from './calendar';
import { decidePauseSubscription, decideResumeSubscription } from './pause';
import { periodAt } from './periods';
import { ItemSchedule, SubscriptionEvent, SubscriptionPaused } from './subscription-events';
import { Subscription, subscriptionEvolver } from './subscription';
import { MONTHLY_ADVANCE, MONTHLY_ARREARS, SUBSCRIPTION_ID, WEEKLY_ADVANCE, created, item, runEngineTo } from './subscription.arbitraries';
import { startOfDayIn } from './time-zone';

/**
 * Periods still tile the term after pauses: with pauses and resumes (by hand or at resumeAt) at random
 * instants, the days each recurring item is billed for — the pieces billed, less the days a pause credited
 * back — are every day from the anchor on that no pause kept from service, each exactly once, and every piece
 * lies within one period of the unchanged anchor.
 */

const DAY_MS = 86_400_000;
const SCHEDULES: Record<string, Extract<ItemSchedule, { purchase: 'recurring' }>> = {
  a: MONTHLY_ADVANCE as Extract<ItemSchedule, { purchase: 'recurring' }>,
  b: MONTHLY_ARREARS as Extract<ItemSchedule, { purchase: 'recurring' }>,
  c: WEEKLY_ADVANCE as Extract<ItemSchedule, { purchase: 'recurring' }>,
};
/** The engine runs this far past the last request; days up to 70 days before it must all be settled. */
const RUN_DAYS = 120;

interface Request {
  readonly dayOffset: number;
  readonly minute: number;
  readonly kind: 'pause' | 'resume';
  /** pause only: resumeAt this many days after the pause day; null: resumed only by hand. */
  readonly resumeAfter: number | null;
}

const request: fc.Arbitrary<Request> = fc.record({
  dayOffset: fc.integer({ min: 0, max: 300 }),
  minute: fc.integer({ min: 0, max: 24 * 60 - 1 }),
  kind: fc.constantFrom<Request['kind']>('pause', 'resume'),
  resumeAfter: fc.option(fc.integer({ min: 1, max: 70 }), { nil: null }),
});

/** Each day from start to end (inclusive). */
function* days(start: string, end: string): Generator<string> {
  for (let day = start; day <= end; day = addDays(day, 1)) yield day;
}

describe('pause: periods still tile the term after pauses (property)', () => {
  it('every day not paused is billed exactly once per item, no paused day is, and every piece keeps to a period of the anchor', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom('UTC', 'Europe/Helsinki', 'America/New_York'),
        fc.subarray(['a', 'b', 'c'], { minLength: 1 }),
        fc.array(request, { maxLength: 8 }),
        (startDate, timeZone, itemIds, requests) => {
          const start = startDate.toISOString().slice(0, 10);
          const creation = created({ term: { start, end: null }, timeZone, items: itemIds.map((id) => item(id, SCHEDULES[id])) });
          let events: SubscriptionEvent[] = [creation];
          const origin = startOfDayIn(start, timeZone).getTime();
          const instants = requests
            .map((r) => ({ ...r, at: new Date(origin + r.dayOffset * DAY_MS + r.minute * 60_000) }))
            .sort((x, y) => x.at.getTime() - y.at.getTime());
          for (const { at, kind, resumeAfter } of instants) {
            events = runEngineTo(events, at.toISOString());
            const state = foldEvents(subscriptionEvolver, events);
            const today = new Intl.DateTimeFormat('en-CA', { timeZone }).format(at);
            try {
              const meta = metadataAt(at.toISOString());
              events.push(
                ...(kind === 'pause'
                  ? decidePauseSubscription(
                      { subscriptionId: SUBSCRIPTION_ID, resumeAt: resumeAfter === null ? null : addDays(today, resumeAfter) },
                      state,
                      meta,
                    )
                  : decideResumeSubscription({ subscriptionId: SUBSCRIPTION_ID }, state, meta)),
              );
            } catch (error) {
              if (!(error instanceof DomainError)) throw error;
            }
          }
          const last = instants.at(-1)?.at.getTime() ?? origin;
          events = runEngineTo(events, new Date(last + RUN_DAYS * DAY_MS).toISOString());
          const horizon = addDays(new Date(last).toISOString().slice(0, 10), RUN_DAYS - 70);
          const final = foldEvents(subscriptionEvolver, events) as Subscription;

          // The paused days, from the events alone: each pause from its first day to the day before its resume (or on).
          const paused: { start: string; end: string }[] = [];
          for (const event of events) {
            if (event.type === 'SubscriptionPaused') paused.push({ start: event.data.start, end: '9999-12-31' });
            if (event.type === 'SubscriptionResumed') paused[paused.length - 1].end = addDays(event.data.resumeDay, -1);
          }
          const isPaused = (day: string) => paused.some((gap) => gap.start <= day && day <= gap.end);

          for (const itemId of itemIds) {
            const count = new Map<string, number>();
            const add = (period: { start: string; end: string }, by: number) => {
              for (const day of days(period.start, period.end)) count.set(day, (count.get(day) ?? 0) + by);
            };
            for (const event of events) {
              if (event.type !== 'SubscriptionBilled') continue;
              for (const line of event.data.lines.filter((l) => l.itemId === itemId)) {
                const full = periodAt(final.anchor, SCHEDULES[itemId], line.period!.start);
                // Within one period of the anchor, which pauses never move.
                if (line.period!.end > full.end || line.daysInFullPeriod !== daysInclusive(full.start, full.end)) {
                  throw new Error(`piece ${line.period!.start} – ${line.period!.end} of ${itemId} leaves its period ${full.start} – ${full.end}`);
                }
                add(line.period!, 1);
              }
            }
            for (const event of events.filter((e): e is SubscriptionPaused => e.type === 'SubscriptionPaused')) {
              for (const credit of event.data.prorations.filter((p) => p.itemId === itemId)) add(credit.period, -1);
            }
            // Days billed other than once (or at all while paused): none.
            const wrong = [...days(final.anchor, horizon)].filter((day) => (count.get(day) ?? 0) !== (isPaused(day) ? 0 : 1));
            wrong.push(...[...count].filter(([day, n]) => n !== 0 && (n !== 1 || isPaused(day))).map(([day]) => day));
            expect({ itemId, wrong }).toEqual({ itemId, wrong: [] });
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
