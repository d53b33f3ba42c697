import {
  CommandMetadata,
  ConflictError,
  FieldError,
  NotFoundError,
  QUANTITY_SCALE,
  ValidationError,
  addDays,
  parseScaledDecimal,
  isDueBy,
} from '@billing/shared-kernel';
import { advanceCredit, proratedItem } from './billing-decisions';
import { nextDue, refuseBilledSince } from './billing';
import { daysInclusive, maxDate, minDate, validDate } from './calendar';
import { ChargedPrice, PricedComponent } from './invoice-composition';
import { periodAt, proRate } from './periods';
import { ProrationBehavior } from './proration-behavior';
import {
  AdvancePiece,
  ItemChange,
  ItemsChange,
  ProrationLine,
  SubscriptionBilled,
  SubscriptionChangeDropped,
  SubscriptionChangeScheduled,
  SubscriptionItem,
  SubscriptionItemsChanged,
} from './subscription-events';
import { MAX_SUBSCRIPTION_ITEMS, Subscription, SubscriptionState, existingSubscription, finalDay, isOverAt, trialRunning } from './subscription';
import { PriceFacts } from './subscription-commands';
import { endedError, subscribablePrice, validQuantity } from './subscription-decisions';
import { localDateOf, startOfDayIn } from './time-zone';

/**
 * Changing a subscription's items (POST /subscriptions/{id}/changes): add an item, change an item's price
 * or quantity, delete one. A change is in force from its first day D (today for `now`); what it does to the
 * current period (README: Changing items):
 * - an advance item billed past D: a credit of its billed remainder from D (advanceCredit) and, for the
 *   item as it becomes, a charge of the same days at the new price — both proRate(full amount, days, days
 *   in the full period), rounded once each; `none`: neither, the new price bills from the next period;
 * - an arrears item: its unbilled days before D at the old price (a charge line), the new price from D
 *   (its next piece starts at D), whatever the behaviour — it bills what was used;
 * - an added advance item: a charge from D to the end of its period (`none`: free until its next period);
 *   added on the first day of a period, its regular charge bills it;
 * - nothing before the first billed day (a trial): items just change.
 * Lines wait for the next invoice (pendingProrations); always_invoice bills them at once.
 */

export interface RequestedItemChange {
  readonly id?: string | null;
  readonly priceId?: string | null;
  /** The catalog's facts of priceId (null: no such price); looked up by the caller when priceId is given. */
  readonly price?: PriceFacts | null;
  readonly quantity?: number | string | null;
  readonly delete?: boolean | null;
}

export interface ChangeItems {
  readonly subscriptionId: string;
  readonly changeId: string;
  readonly items: readonly RequestedItemChange[];
  /** 'now', 'period_end' or a date (YYYY-MM-DD, the subscription's zone) after today. */
  readonly effective: string;
  readonly prorationBehavior: ProrationBehavior;
}

/** By price id, the catalog's prices in the subscription's currency (as composeInvoice takes them). */
export type ChangePrices = ReadonlyMap<string, ChargedPrice<PricedComponent>>;

/** The price ids whose pricing a change needs: the items' now and the ones it names (requested, or of a scheduled change). */
export function priceIdsOfChange(subscription: Subscription, named: readonly (string | null | undefined)[]): string[] {
  return [...new Set([...subscription.items.map((item) => item.priceId), ...named.flatMap((priceId) => (priceId ? [priceId] : []))])];
}

/** The price ids a scheduled change names. */
export function priceIdsNamedBy(change: ItemsChange): string[] {
  return change.changes.flatMap((itemChange) => (itemChange.action === 'delete' ? [] : [itemChange.item.priceId]));
}

/**
 * Validates a change request against the subscription (every bad member a 422 at its pointer, all at once)
 * and resolves it: its first day and instant, and each item as it becomes.
 */
export function planChange(command: ChangeItems, subscription: Subscription, meta: CommandMetadata): ItemsChange {
  const errors: FieldError[] = [];
  const check = <T>(validate: () => T): T | undefined => {
    try {
      return validate();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...error.errors);
      return undefined;
    }
  };
  const today = localDateOf(meta.now, subscription.timeZone);
  const timing = check(() => effectiveOf(command.effective, subscription, today, meta.now));
  if (command.items.length === 0) errors.push({ pointer: '/items', detail: 'must name at least one item to add, change or delete' });
  let items = [...subscription.items];
  const changes: ItemChange[] = [];
  const seen = new Set<string>();
  command.items.forEach((request, i) => {
    const pointer = `/items/${i}`;
    const change = check(() => itemChangeOf(request, pointer, subscription, seen, meta));
    if (change === undefined) return;
    changes.push(change);
    if (change.action === 'add') items.push(change.item);
    else if (change.action === 'delete') items = items.filter((item) => item.id !== change.itemId);
    else items = items.map((item) => (item.id === change.item.id ? change.item : item));
  });
  if (errors.length === 0) {
    if (items.length > MAX_SUBSCRIPTION_ITEMS)
      errors.push({ pointer: '/items', detail: `the subscription would have more than ${MAX_SUBSCRIPTION_ITEMS} items` });
    // Lines waiting for the next invoice need a next invoice: a recurring item keeps one coming.
    if (!items.some((item) => item.schedule.purchase === 'recurring')) {
      errors.push({ pointer: '/items', detail: 'at least one recurring item must remain' });
    }
  }
  if (errors.length > 0) throw new ValidationError('The change request is invalid.', errors);
  return { id: command.changeId, ...timing!, prorationBehavior: command.prorationBehavior, changes, requestedAt: meta.now.toISOString() };
}

function effectiveOf(effective: string, subscription: Subscription, today: string, now: Date): { date: string; effectiveAt: string } {
  if (effective === 'now') return { date: today, effectiveAt: now.toISOString() };
  const date = effective === 'period_end' ? periodEndOf(subscription, today) : validDate(effective, '/effective');
  if (date <= today) throw ValidationError.at('/effective', `must be after today (${today}, in ${subscription.timeZone}); for today use "now"`);
  const last = finalDay(subscription);
  if (last !== null && date > last) throw ValidationError.at('/effective', `the subscription ends on ${last}, before the change would apply (${date})`);
  return { date, effectiveAt: startOfDayIn(date, subscription.timeZone).toISOString() };
}

/**
 * The first day after the current billing period: within a trial its end (the first day billed), else the
 * day after the latest current-period end among the recurring items (as a cancellation at the period's end).
 */
function periodEndOf(subscription: Subscription, today: string): string {
  if (trialRunning(subscription) && today < subscription.trial.end) return subscription.trial.end;
  const date = maxDate(today, subscription.anchor);
  const ends = subscription.items.flatMap(({ schedule }) => (schedule.purchase === 'recurring' ? [periodAt(subscription.anchor, schedule, date).end] : []));
  return addDays(ends.reduce(maxDate), 1);
}

function itemChangeOf(request: RequestedItemChange, pointer: string, subscription: Subscription, seen: Set<string>, meta: CommandMetadata): ItemChange {
  const { id, priceId, quantity } = request;
  if (id == null) {
    if (request.delete != null) throw ValidationError.at(`${pointer}/delete`, 'only an existing item (id) can be deleted');
    if (priceId == null) throw ValidationError.at(`${pointer}/priceId`, 'is required to add an item (or give id to change one)');
    const schedule = changeablePrice(request, subscription, `${pointer}/priceId`);
    const { name, product } = request.price!;
    const item: SubscriptionItem = {
      id: meta.newId(),
      priceId,
      priceName: name,
      product: product!,
      quantity: validQuantity(quantity ?? 1, `${pointer}/quantity`),
      taxCode: null,
      schedule,
    };
    return { action: 'add', item };
  }
  const item = subscription.items.find((candidate) => candidate.id === id);
  if (item === undefined) throw ValidationError.at(`${pointer}/id`, `names no item of subscription ${subscription.id}`);
  if (seen.has(id)) throw ValidationError.at(`${pointer}/id`, 'names an item already changed in this request');
  seen.add(id);
  if (item.schedule.purchase === 'recurring' && item.schedule.billingTiming === 'event_based') {
    throw ValidationError.at(`${pointer}/id`, 'a usage-based (event_based) item cannot be changed');
  }
  if (request.delete != null) {
    if (request.delete !== true) throw ValidationError.at(`${pointer}/delete`, 'must be true (or absent)');
    if (priceId != null || quantity != null) throw ValidationError.at(`${pointer}/delete`, 'a deleted item takes no priceId or quantity');
    return { action: 'delete', itemId: id };
  }
  if (item.schedule.purchase === 'one_time') throw ValidationError.at(`${pointer}/id`, 'a one-time item cannot be changed (it can be deleted)');
  if (priceId == null && quantity == null) throw ValidationError.at(pointer, 'changes nothing: give priceId, quantity or delete');
  const changed: SubscriptionItem = { ...item, quantity: quantity == null ? item.quantity : validQuantity(quantity, `${pointer}/quantity`) };
  if (priceId == null || priceId === item.priceId) {
    if (changed.quantity === item.quantity) throw ValidationError.at(pointer, 'changes nothing: the item has this price and quantity');
    return { action: 'update', item: changed };
  }
  const schedule = changeablePrice(request, subscription, `${pointer}/priceId`);
  if (!sameBilling(schedule, item.schedule)) {
    throw ValidationError.at(
      `${pointer}/priceId`,
      'must bill like the item it replaces (same interval and timing); to change those, delete the item and add a new one',
    );
  }
  return { action: 'update', item: { ...changed, priceId, priceName: request.price!.name, product: request.price!.product! } };
}

/** Whether two schedules bill alike: the same purchase, interval and timing. */
function sameBilling(a: SubscriptionItem['schedule'], b: SubscriptionItem['schedule']): boolean {
  if (a.purchase === 'one_time' || b.purchase === 'one_time') return a.purchase === b.purchase;
  return a.termCount === b.termCount && a.termUnit === b.termUnit && a.billingTiming === b.billingTiming;
}

/** A price a change can bill: not usage-based, subscribable in the subscription's currency, recurring (its schedule). */
function changeablePrice(request: RequestedItemChange, subscription: Subscription, pointer: string): SubscriptionItem['schedule'] {
  // Refused before the subscribable checks: those refuse a usage price whose metric is not known to exist, and a change
  // never looks its metric up, so the answer would blame a metric that exists rather than say why.
  if (request.price?.billingTiming === 'event_based') {
    throw ValidationError.at(pointer, 'a usage-based (event_based) price cannot be added by a change, nor replace an item’s price');
  }
  const { schedule } = subscribablePrice({ priceId: request.priceId!, price: request.price ?? null, quantity: 1 }, subscription.currency, pointer);
  if (schedule.purchase === 'one_time') throw ValidationError.at(pointer, 'a one-time price cannot be added by a change');
  return schedule;
}

// ---------------------------------------------------------------- deciders

/**
 * POST /subscriptions/{id}/changes: a change effective now is applied (SubscriptionItemsChanged with its
 * proration lines); one effective later is scheduled (SubscriptionChangeScheduled). Refused: an ended
 * subscription (409 subscription-ended), another change pending (409 subscription-change-pending), billing
 * due before now that the engine has yet to book (409 subscription-billing-pending: the change prorates
 * what was billed), a paused subscription (409 subscription-paused: its paused days were credited and a
 * change would prorate them again; resume it first).
 */
export function decideChangeItems(
  command: ChangeItems,
  state: SubscriptionState,
  meta: CommandMetadata,
  prices: ChangePrices,
): SubscriptionItemsChanged[] | SubscriptionChangeScheduled[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  if (subscription.pause != null) {
    throw new ConflictError('subscription-paused', `subscription ${subscription.id} is paused (since ${subscription.pause.pausedAt}): resume it first`);
  }
  const pending = subscription.pendingChanges ?? [];
  if (pending.length > 0) {
    throw new ConflictError('subscription-change-pending', `subscription ${subscription.id} has a scheduled change (${pending[0].id}): drop it first (DELETE)`);
  }
  // Also for a scheduled change: period_end is worked out from today.
  refuseBilledSince(subscription, meta.now);
  const change = planChange(command, subscription, meta);
  if (!isDueBy(change.effectiveAt, meta.now)) {
    return [{ type: 'SubscriptionChangeScheduled', schemaVersion: 1, data: { subscriptionId: subscription.id, change } }];
  }
  return [itemsChanged(subscription, change, prices, meta)];
}

/** The scheduled change whose instant has come by now, if any (the engine applies it before billing at the same instant). */
export function dueChange(state: SubscriptionState, now: Date): ItemsChange | null {
  if (state.status === 'none' || state.status === 'ended') return null;
  const next = state.pendingChanges?.[0];
  return next !== undefined && isDueBy(next.effectiveAt, now) && !isOverAt(state, new Date(next.effectiveAt)) ? next : null;
}

/** When the next scheduled change applies; null: none (or the subscription ends first). */
export function nextChangeAt(state: SubscriptionState): Date | null {
  if (state.status === 'none' || state.status === 'ended') return null;
  const next = state.pendingChanges?.[0];
  return next === undefined || isOverAt(state, new Date(next.effectiveAt)) ? null : new Date(next.effectiveAt);
}

/** The engine applies a scheduled change at its instant (before the billing due at that instant: its charges use the new items). */
export function decideApplyScheduledChange(
  command: { subscriptionId: string; changeId: string },
  state: SubscriptionState,
  meta: CommandMetadata,
  prices: ChangePrices,
): SubscriptionItemsChanged[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  const change = dueChange(subscription, meta.now);
  if (change === null || change.id !== command.changeId) return [];
  return [itemsChanged(subscription, change, prices, { ...meta, now: new Date(change.effectiveAt) }, meta.now)];
}

/**
 * DELETE /subscriptions/{id}/changes/{changeId}: 404 for a change that is not pending (unknown, applied or
 * dropped). The engine drops a change it cannot price at its instant (`reason`) rather than hold up the
 * subscription's billing.
 */
export function decideDropChange(
  command: { subscriptionId: string; changeId: string; reason?: string },
  state: SubscriptionState,
  meta: CommandMetadata,
): SubscriptionChangeDropped[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (!(subscription.pendingChanges ?? []).some((change) => change.id === command.changeId)) throw new NotFoundError('change', command.changeId);
  if (command.reason !== undefined) {
    const data = { subscriptionId: subscription.id, changeId: command.changeId, droppedAt: meta.now.toISOString(), reason: command.reason };
    return [{ type: 'SubscriptionChangeDropped', schemaVersion: 1, data }];
  }
  if (isOverAt(subscription, meta.now)) throw endedError(subscription);
  return [
    {
      type: 'SubscriptionChangeDropped',
      schemaVersion: 1,
      data: { subscriptionId: subscription.id, changeId: command.changeId, droppedAt: meta.now.toISOString() },
    },
  ];
}

/**
 * Whether always_invoice books the lines waiting at once: there are some, and they come to a net charge, or
 * to a net credit that the customer record's balance takes. A net credit of a subscription without a customer
 * record stays waiting: the next invoice bills it as negative lines.
 */
export function billsProrationsAtOnce(subscription: Subscription): boolean {
  const prorations = subscription.pendingProrations ?? [];
  return prorations.length > 0 && (prorationsNet(prorations) >= 0 || Boolean(subscription.customerId));
}

/** always_invoice: every proration line waiting, booked at once on an invoice of its own (billAt now); none when billsProrationsAtOnce says no. */
export function decideBillProrations(
  command: { subscriptionId: string; invoiceId: string },
  state: SubscriptionState,
  meta: CommandMetadata,
): SubscriptionBilled[] {
  const subscription = existingSubscription(state, command.subscriptionId);
  if (!billsProrationsAtOnce(subscription)) return [];
  const prorations = subscription.pendingProrations!;
  const at = meta.now.toISOString();
  return [
    {
      type: 'SubscriptionBilled',
      schemaVersion: 1,
      data: { subscriptionId: subscription.id, invoiceId: command.invoiceId, billAt: at, lines: [], billedAt: at, prorations },
    },
  ];
}

/** The net amount of proration lines (charges less credits), before tax. */
export function prorationsNet(prorations: readonly ProrationLine[]): number {
  return prorations.reduce((sum, line) => sum + (line.kind === 'credit' ? -line.amount : line.amount), 0);
}

// ---------------------------------------------------------------- proration

/** Applies `change` to the subscription at meta.now (its instant): the items after it and the proration lines of its first day. */
function itemsChanged(
  subscription: Subscription,
  change: ItemsChange,
  prices: ChangePrices,
  meta: CommandMetadata,
  recordedAt: Date = meta.now,
): SubscriptionItemsChanged {
  const due = nextDue(subscription);
  // What the change prorates must be billed: billing due before the change comes first (the engine's, or a retry later).
  if (due !== null && due.billAt < meta.now) {
    throw new ConflictError(
      'subscription-billing-pending',
      `subscription ${subscription.id} has billing due at ${due.billAt.toISOString()} that the billing engine has yet to book; try again shortly`,
    );
  }
  const prorated = prorationsOf(subscription, change, prices);
  let items = [...subscription.items];
  for (const itemChange of change.changes) {
    if (itemChange.action === 'add') items.push(itemChange.item);
    else if (itemChange.action === 'delete') items = items.filter((item) => item.id !== itemChange.itemId);
    else items = items.map((item) => (item.id === itemChange.item.id ? itemChange.item : item));
  }
  return {
    type: 'SubscriptionItemsChanged',
    schemaVersion: 1,
    data: { subscriptionId: subscription.id, change, items, ...prorated, changedAt: recordedAt.toISOString() },
  };
}

interface Prorated {
  readonly billedThrough: Record<string, string>;
  readonly advanceBilled: Record<string, AdvancePiece>;
  readonly prorations: ProrationLine[];
}

/** The proration lines of a change on its first day, and where billing of the items it touches goes on from. */
export function prorationsOf(subscription: Subscription, change: ItemsChange, prices: ChangePrices): Prorated {
  const result: Prorated = { billedThrough: {}, advanceBilled: {}, prorations: [] };
  const { date } = change;
  // Before the first billed day (a trial) nothing was billed or used: the items just change.
  if (date < subscription.anchor) return result;
  const prorate = change.prorationBehavior !== 'none';
  for (const itemChange of change.changes) {
    if (itemChange.action === 'add') {
      added(subscription, itemChange.item, date, prorate, prices, result);
      continue;
    }
    const itemId = itemChange.action === 'delete' ? itemChange.itemId : itemChange.item.id;
    const old = subscription.items.find((item) => item.id === itemId)!;
    if (old.schedule.purchase !== 'recurring') continue;
    if (old.schedule.billingTiming === 'arrears') {
      usedBefore(subscription, old, date, prices, result);
      continue;
    }
    if (!prorate) continue;
    const credit = advanceCredit(subscription, old, date, 'change');
    if (credit === null) continue;
    result.prorations.push(credit);
    if (itemChange.action === 'update') {
      const fullAmount = fullAmountOf(itemChange.item, prices);
      result.prorations.push(chargeLine(itemChange.item, credit.period, credit.daysInFullPeriod, fullAmount));
      result.advanceBilled[itemId] = { ...subscription.advanceBilled![itemId], fullAmount: Number(fullAmount) };
    }
  }
  return result;
}

/** An arrears item's unbilled days before the change, at its old price: a charge line; its next piece starts on the change's day. */
function usedBefore(subscription: Subscription, item: SubscriptionItem, date: string, prices: ChangePrices, result: Prorated): void {
  const first = subscription.billedThrough[item.id] === undefined ? subscription.anchor : addDays(subscription.billedThrough[item.id], 1);
  const last = addDays(date, -1);
  if (first > last || item.schedule.purchase !== 'recurring') return;
  const full = periodAt(subscription.anchor, item.schedule, first);
  result.prorations.push(chargeLine(item, { start: first, end: last }, daysInclusive(full.start, full.end), fullAmountOf(item, prices), 'used_before_change'));
  result.billedThrough[item.id] = last;
}

/**
 * An added item from the change's day: an advance item's rest of the period as a charge line (none: free
 * until its next period), unless the day starts a period (its regular charge bills it); an arrears item's
 * first piece starts that day.
 */
function added(subscription: Subscription, item: SubscriptionItem, date: string, prorate: boolean, prices: ChangePrices, result: Prorated): void {
  if (item.schedule.purchase !== 'recurring') return;
  const full = periodAt(subscription.anchor, item.schedule, date);
  const termLast = subscription.term.end;
  // On the first day of a piece (a period's, or a renewed term's) the item's regular charge bills it.
  if (item.schedule.billingTiming !== 'advance' || full.start === date || date === subscription.term.start || (termLast !== null && date > termLast)) {
    result.billedThrough[item.id] = addDays(date, -1);
    return;
  }
  const final = finalDay(subscription);
  let end = termLast === null ? full.end : minDate(full.end, termLast);
  if (final !== null) end = minDate(end, final);
  result.billedThrough[item.id] = end;
  if (!prorate) return;
  const fullAmount = fullAmountOf(item, prices);
  const period = { start: date, end };
  const daysInFullPeriod = daysInclusive(full.start, full.end);
  result.prorations.push(chargeLine(item, period, daysInFullPeriod, fullAmount));
  result.advanceBilled[item.id] = { period, daysInFullPeriod, fullAmount: Number(fullAmount) };
}

/** A charge of `period` at the item's price: fullAmount × days ÷ daysInFullPeriod, rounded half away from zero once. */
function chargeLine(
  item: SubscriptionItem,
  period: { start: string; end: string },
  daysInFullPeriod: number,
  fullAmount: bigint,
  reason: 'change' | 'used_before_change' = 'change',
): ProrationLine {
  const days = daysInclusive(period.start, period.end);
  return {
    itemId: item.id,
    kind: 'charge',
    reason,
    item: proratedItem(item),
    period,
    days,
    daysInFullPeriod,
    fullAmount: Number(fullAmount),
    amount: Number(proRate(fullAmount, days, daysInFullPeriod)),
  };
}

/** The item's price for a full period at its quantity, in the subscription's currency (422 at /items when the catalog has none). */
function fullAmountOf(item: SubscriptionItem, prices: ChangePrices): bigint {
  const price = prices.get(item.priceId);
  if (!price || price.componentsAt === null) throw ValidationError.at('/items', `price ${item.priceId} has no pricing in the subscription's currency`);
  const components = price.componentsAt(parseScaledDecimal(item.quantity, QUANTITY_SCALE, '/quantity'));
  return components.reduce((sum, component) => sum + component.amount, 0n);
}
