import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { filterConditions, invalidPageToken, keysetPage, Page, pageTokenCodec, tokenField } from '@billing/platform';
import { OrderField, Payment, PaymentProvider, PaymentQuery } from '../domain';
import { PaymentProviderView, PaymentView, toPaymentView, toProviderView } from '../views';

const COLUMNS: Readonly<Record<PaymentQuery['filters'][number]['field'], string>> = {
  status: 'status',
  invoiceId: 'invoice_id',
  customerId: 'customer_id',
  provider: 'provider',
  currency: 'currency',
  amount: 'amount',
  createdAt: 'created_at',
};
const ORDER_COLUMNS: Readonly<Record<OrderField, string | null>> = { id: null, createdAt: 'created_at', amount: 'amount' };

/** A collection's claimed try's payment, as `p` (none while it is not recorded yet). */
const COLLECTION_PAYMENT = `left join payments p on c.status = 'attempting' and p.environment_id = c.environment_id and p.id = (c.state->>'paymentId')::uuid`;
/**
 * A collection with work: a try due, or a claimed try to look at, except one
 * whose payment is still pending, or whose invoice has another payment under
 * way (the API's, the hosted page's: one payment of an invoice at a time).
 * Those wait for the outcome (looked at again once it is recorded) instead of
 * being looked at in every run: however many wait, they never stand in front
 * of the tries that are due.
 */
const COLLECTION_WORK = `(c.status = 'due' or (c.status = 'attempting' and coalesce(p.status, '') not in ('pending', 'requires_action')))
  and not exists (select 1 from payments o where o.environment_id = c.environment_id and o.invoice_id = c.invoice_id
                   and o.status in ('pending', 'requires_action'))`;

/** Where a page ended: the order it was read in, the last row's order value (as text) and id. */
const PAGE_TOKEN = pageTokenCodec({
  order: tokenField.oneOf((Object.keys(ORDER_COLUMNS) as OrderField[]).flatMap((field) => [field, `-${field}`])),
  value: tokenField.text(40),
  id: tokenField.uuid,
});
type PageKey = ReturnType<typeof PAGE_TOKEN.decode>;

/** Reads of the payments context's own tables. */
@Injectable()
export class PaymentsReadModel {
  constructor(private readonly dataSource: DataSource) {}

  async payment(environmentId: string, id: string): Promise<{ payment: Payment; version: number } | null> {
    const [row] = await queryRows<{ state: Payment; version: number }>(
      this.dataSource.manager,
      `select state, version from payments where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row ? { payment: row.state, version: row.version } : null;
  }

  /** Filters combined with and; ordered by the field, then id; keyset paging whose token is bound to the order. */
  async list(environmentId: string, query: PaymentQuery): Promise<Page<PaymentView>> {
    const { params, where } = filterConditions(environmentId, query.filters, COLUMNS);
    const column = ORDER_COLUMNS[query.orderBy.field];
    const direction = query.orderBy.descending ? 'desc' : 'asc';
    const order = `${query.orderBy.descending ? '-' : ''}${query.orderBy.field}`;
    if (query.pageToken !== undefined) {
      const after = decodeKey(query.pageToken, order);
      const comparison = query.orderBy.descending ? '<' : '>';
      if (column === null) {
        params.push(after.id);
        where.push(`id ${comparison} $${params.length}::uuid`);
      } else {
        params.push(after.value, after.id);
        const cast = column === 'amount' ? 'bigint' : 'timestamptz';
        where.push(`(${column}, id) ${comparison} ($${params.length - 1}::${cast}, $${params.length}::uuid)`);
      }
    }
    params.push(query.limit + 1);
    const orderBy = column === null ? `id ${direction}` : `${column} ${direction}, id ${direction}`;
    // The amount's text gets its own name: `order by amount` must see the bigint column, not a select-list alias.
    const rows = await queryRows<{ id: string; amount_text: string; created_at: Date; state: Payment }>(
      this.dataSource.manager,
      `select id, amount::text as amount_text, created_at, state from payments where ${where.join(' and ')} order by ${orderBy} limit $${params.length}`,
      params,
    );
    const value = (row: (typeof rows)[number]) =>
      query.orderBy.field === 'amount' ? row.amount_text : query.orderBy.field === 'createdAt' ? row.created_at.toISOString() : row.id;
    return keysetPage(rows, {
      limit: query.limit,
      codec: PAGE_TOKEN,
      key: (row) => ({ order, value: value(row), id: row.id }),
      item: (row) => toPaymentView(row.state),
    });
  }

  async providers(environmentId: string): Promise<PaymentProviderView[]> {
    const rows = await queryRows<{ state: PaymentProvider }>(
      this.dataSource.manager,
      `select state from payment_providers where environment_id = $1 order by name`,
      [environmentId],
    );
    return rows.map((row) => toProviderView(row.state));
  }

  /** The environment's collections with a try due at `now` (or one under way to look at), oldest first, after `page.after`. */
  async collectionsDue(environmentId: string, now: Date, page: { after: CollectionDue | null; limit: number }): Promise<CollectionDue[]> {
    const rows = await queryRows<{ invoice_id: string; next_attempt_at: Date }>(
      this.dataSource.manager,
      `select c.invoice_id, c.next_attempt_at from payment_collections c ${COLLECTION_PAYMENT}
        where c.environment_id = $1 and ${COLLECTION_WORK} and c.next_attempt_at <= $2
          and ($4::timestamptz is null or (c.next_attempt_at, c.invoice_id) > ($4, $5::uuid))
        order by c.next_attempt_at, c.invoice_id limit $3`,
      [environmentId, now, page.limit, page.after?.nextAttemptAt ?? null, page.after?.invoiceId ?? null],
    );
    return rows.map((row) => ({ invoiceId: row.invoice_id, nextAttemptAt: row.next_attempt_at }));
  }

  /** How many collection tries are due and not yet made, all environments (by real time, or each test clock): the backlog. */
  async collectionsDueCount(now: Date, testClocks: boolean): Promise<number> {
    const [row] = await queryRows<{ due: number }>(
      this.dataSource.manager,
      `select count(*)::int as due from payment_collections c ${COLLECTION_PAYMENT}
         left join environment_clocks k on $2 and k.environment_id = c.environment_id
        where ${COLLECTION_WORK} and c.next_attempt_at <= coalesce(k.now, $1)`,
      [now, testClocks],
    );
    return row.due;
  }

  /** Environments with collection work due by real time (`now`) or, with test clocks, by their own clock. */
  async environmentsWithCollections(now: Date, testClocks: boolean): Promise<string[]> {
    const rows = await queryRows<{ environment_id: string }>(
      this.dataSource.manager,
      `select distinct c.environment_id from payment_collections c ${COLLECTION_PAYMENT}
         left join environment_clocks k on $2 and k.environment_id = c.environment_id
        where ${COLLECTION_WORK} and c.next_attempt_at <= coalesce(k.now, $1)`,
      [now, testClocks],
    );
    return rows.map((row) => row.environment_id);
  }

  /**
   * Payments whose outcome is still unknown and payments with a refund still
   * unknown, whose wait is over: `wait.ms` after they were recorded in real
   * time (`wait.realNow`), or, with test clocks, after their `createdAt` in
   * their environment's time (an advance past it). For each, whether the
   * real wait is over (every pending refund then is) and the environment's
   * cut-off (a refund asked before it is due too). In the order they were
   * recorded, from after `page.after` (a lookup that stays unknown changes
   * nothing, so the caller walks on rather than asking the same ones again);
   * of one environment when given.
   */
  async awaitingLookup(
    wait: { realNow: Date; ms: number; testClocks: boolean },
    page: { after: AwaitingLookup | null; limit: number; environmentId?: string },
  ): Promise<AwaitingLookup[]> {
    const { after, limit, environmentId } = page;
    const rows = await queryRows<{ environment_id: string; id: string; recorded_at: Date; real_due: boolean; environment_cutoff: Date }>(
      this.dataSource.manager,
      `select p.environment_id, p.id, p.recorded_at, p.recorded_at <= $1 as real_due, e.cutoff as environment_cutoff
         from payments p
         left join environment_clocks c on $3 and c.environment_id = p.environment_id
         cross join lateral (select coalesce(c.now, $2) - make_interval(secs => $4::double precision / 1000) as cutoff) e
        where ($6::uuid is null or p.environment_id = $6)
          and ($7::timestamptz is null or (p.recorded_at, p.environment_id, p.id) > ($7, $8::uuid, $9::uuid))
          and ((p.status in ('pending', 'requires_action') and (p.recorded_at <= $1 or p.created_at <= e.cutoff))
            or (p.refund_pending_since is not null and (p.recorded_at <= $1 or p.refund_pending_since <= e.cutoff)))
        order by p.recorded_at, p.environment_id, p.id
        limit $5`,
      [
        new Date(wait.realNow.getTime() - wait.ms),
        wait.realNow,
        wait.testClocks,
        wait.ms,
        limit,
        environmentId ?? null,
        after?.recordedAt ?? null,
        after?.environmentId ?? null,
        after?.id ?? null,
      ],
    );
    return rows.map((row) => ({
      environmentId: row.environment_id,
      id: row.id,
      recordedAt: row.recorded_at,
      realDue: row.real_due,
      environmentCutoff: row.environment_cutoff,
    }));
  }
}

/** A collection with a try to make or look at: its place in the work list. */
export interface CollectionDue {
  readonly invoiceId: string;
  readonly nextAttemptAt: Date;
}

/** A payment (or its refund) whose unknown outcome is due for a lookup. */
export interface AwaitingLookup {
  readonly environmentId: string;
  readonly id: string;
  /** When its stream last changed, real time: the order of the work list. */
  readonly recordedAt: Date;
  /** The real wait is over: it, and every refund of it still pending, is due. */
  readonly realDue: boolean;
  /** Its environment's now less the wait: a payment or refund created before it is due. */
  readonly environmentCutoff: Date;
}

function decodeKey(token: string, order: string): PageKey {
  const key = PAGE_TOKEN.decode(token);
  if (key.order !== order) throw invalidPageToken(`was issued for orderBy ${key.order}: send the same orderBy to go on paging`);
  const valid = order.endsWith('amount')
    ? /^-?\d{1,16}$/.test(key.value)
    : order.endsWith('createdAt')
      ? tokenField.instant(key.value)
      : tokenField.uuid(key.value);
  if (!valid) throw invalidPageToken();
  return key;
}
