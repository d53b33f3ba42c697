import { ExistingPrice } from '@billing/catalog';
import { CommandContext, queryRows, StreamRef, StreamVersionConflictError, UnitOfWork } from '@billing/event-store';
import { CommandMetadata, ConflictError, isDueBy } from '@billing/shared-kernel';
import { EntityManager } from 'typeorm';
import { decideAdvancePause, decideAdvanceTrial, DueBilling, dueBooking, dueChange, nextDue, retryDue, SubscriptionState } from '../domain';

/** The billing engine's batches, and what its steps decide with: which work is due now, and which failure only means composing again. */

/** A step made, and more is due ('again') or not ('done'); nothing due; the subscription busy (composed again later). */
export type Step = 'again' | 'done' | 'nothing' | 'busy';
export type Billing = DueBilling & { retryOf?: string };

/** An invoice a step created, booked at the end of its batch. */
export interface Booking {
  readonly subscriptionId: string;
  readonly invoiceId: string;
  readonly date: string;
  readonly due: Billing;
  readonly context: CommandContext;
}

/** What the subscriptions of one batch share: reads that stay as they are within it, and the invoices booked at its end. */
export class Batch {
  readonly bookings: Booking[] = [];
  /** The catalog's prices read so far (null: gone from it). */
  readonly prices = new Map<string, ExistingPrice | null>();
  paymentTermsDays: number | undefined;
  /** The subscription whose work staged each stream's appends. */
  private readonly owners = new Map<string, string>();

  constructor(
    readonly environmentId: string,
    readonly unit: UnitOfWork,
  ) {}

  /** Runs work of the subscription's, which owns the appends it stages. */
  async owning<Result>(subscriptionId: string, work: () => Promise<Result>): Promise<Result> {
    const from = this.unit.staged!.length;
    try {
      return await work();
    } finally {
      for (const { append } of this.unit.staged!.slice(from)) this.owners.set(streamKey(append.stream), subscriptionId);
    }
  }

  /** The subscription whose staged append another writer's moved a stream under (written at commit), if any. */
  ownerOf(error: unknown): string | undefined {
    return error instanceof StreamVersionConflictError ? this.owners.get(streamKey(error.stream)) : undefined;
  }
}

function streamKey({ environmentId, streamType, streamId }: StreamRef): string {
  return `${environmentId}/${streamType}/${streamId}`;
}

/** A booking at the end of a batch failed: the batch rolled back and runs again without its subscription. */
export class BookingFailed extends Error {
  constructor(
    readonly booking: Booking,
    readonly reason: unknown,
  ) {
    super(`booking the invoice ${booking.invoiceId} of subscription ${booking.subscriptionId} failed`);
  }
}

/** The invoice was composed with a customer's once discount another invoice used first (UseCustomerDiscountsCommand). */
export function isRecomposeConflict(error: unknown): boolean {
  return error instanceof ConflictError && error.code === 'customer-discount-ended';
}

/**
 * Whether more is due at `now` after a step: the step's own checks, on the
 * state its events lead to. A subscription with more is stepped again at
 * once; one without needs no step that loads it only to find nothing (what
 * this misses, the catch-up's next pass still finds).
 */
export function moreDue(subscriptionId: string, state: SubscriptionState, meta: CommandMetadata): boolean {
  const { now } = meta;
  return (
    decideAdvanceTrial({ subscriptionId }, state, meta).length > 0 ||
    decideAdvancePause({ subscriptionId }, state, meta).length > 0 ||
    dueChange(state, now) !== null ||
    retryDue(state, now) !== null ||
    dueNow(state, now) !== null ||
    dueBooking(state, now) !== null
  );
}

/** The subscription's next due work at `now`, unless a failed attempt at it waits for its retry. */
export function dueNow(state: Parameters<typeof nextDue>[0], now: Date): DueBilling | null {
  const due = nextDue(state);
  if (due === null || !isDueBy(due.billAt, now) || state.status === 'none') return null;
  const failure = state.billingFailure;
  if (failure !== null && failure.billAt === due.billAt.toISOString() && Date.parse(failure.retryAt) > now.getTime()) return null;
  return due;
}

/** Due subscriptions claimed in one transaction, which ends after about as many steps. */
export const BATCH_SIZE = 100;
/** Before the first subscription in (next_work_at, id) order. */
const START = { at: '-infinity', id: '00000000-0000-0000-0000-000000000000' };

/**
 * One pass's claims, taken one after another (each after the last
 * subscription the one before claimed): up to BATCH_SIZE due subscriptions
 * in one statement, locked until the claiming batch ends and skipped by
 * every other claim meanwhile.
 */
export function claimsInTurn(environmentId: string, now: Date): (manager: EntityManager) => Promise<string[]> {
  let after = START;
  let turn: Promise<unknown> = Promise.resolve();
  return (manager) => {
    const claimed = turn.then(async () => {
      // A row whose stream moved past it (another process's batch just billed it, the projection has yet to show
      // it) is claimed too and found with nothing due when loaded. Skipping such rows saved that load, but a catch-up
      // then depended on the subscriptions projection moving, and with three processes it once stood still for
      // 30 s ("made no progress") for a cause not found yet: correctness first.
      const rows = await queryRows<{ id: string; at: string }>(
        manager,
        `select s.id, s.next_work_at::text as at from subscriptions s
          where s.environment_id = $1 and s.next_work_at <= $2 and (s.next_work_at, s.id) > ($3::timestamptz, $4::uuid)
          order by s.next_work_at, s.id limit $5 for update of s skip locked`,
        [environmentId, now, after.at, after.id, BATCH_SIZE],
      );
      if (rows.length > 0) after = rows[rows.length - 1];
      return rows.map((row) => row.id);
    });
    turn = claimed.catch(() => undefined);
    return claimed;
  };
}

/** The rest of a batch that runs again without a failing subscription, locked again (those taken meanwhile skipped). */
export function claimAgain(manager: EntityManager, environmentId: string, subscriptionIds: readonly string[]): Promise<string[]> {
  return queryRows<{ id: string }>(
    manager,
    `select id from subscriptions where environment_id = $1 and id = any($2::uuid[]) order by next_work_at, id for update skip locked`,
    [environmentId, subscriptionIds],
  ).then((rows) => rows.map((row) => row.id));
}
