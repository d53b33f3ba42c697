import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectionRunner, queryRows } from '@billing/event-store';
import { ExistingPrice, ExistingProduct } from '@billing/catalog';
import { keysetPage, Page, pageTokenCodec, tokenField } from '@billing/platform';
import { isUuid } from '@billing/shared-kernel';
import { PriceFacts, Subscription, SubscriptionStatus } from '../domain';
import { SubscriptionView, toSubscriptionView } from '../subscription-view';
import { SUBSCRIPTIONS_PROJECTION } from './subscriptions.projection';

export interface SubscriptionFilter {
  readonly status?: SubscriptionStatus;
  readonly customerId?: string;
}

/** A price as the catalog's events describe it, with its product (null when it has none or the product is unknown). */
export interface CatalogPrice {
  readonly price: ExistingPrice;
  readonly product: ExistingProduct | null;
}

/** Reads of the subscriptions context's own tables (statements join the caller's unit of work when there is one). */
/** Newest first: the row's createdAt, then its id. */
const PAGE_TOKEN = pageTokenCodec({ createdAt: tokenField.instant, id: tokenField.uuid });

@Injectable()
export class SubscriptionsReadModel {
  constructor(
    private readonly dataSource: DataSource,
    private readonly runner: ProjectionRunner,
  ) {}

  async find(environmentId: string, id: string): Promise<{ subscription: Subscription; version: number } | null> {
    const [row] = await queryRows<{ state: Subscription; version: number }>(
      this.dataSource.manager,
      `select state, version from subscriptions where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row ? { subscription: row.state, version: row.version } : null;
  }

  /** Newest first (createdAt, then id, descending), keyset paging; `status` is the recorded one. */
  async list(environmentId: string, filter: SubscriptionFilter, limit: number, now: Date, pageToken?: string): Promise<Page<SubscriptionView>> {
    const params: unknown[] = [environmentId];
    const where = ['environment_id = $1'];
    if (filter.status) {
      params.push(filter.status);
      where.push(`status = $${params.length}`);
    }
    if (filter.customerId) {
      params.push(filter.customerId);
      where.push(`customer_id = $${params.length}`);
    }
    if (pageToken !== undefined) {
      const after = PAGE_TOKEN.decode(pageToken);
      params.push(after.createdAt, after.id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(limit + 1);
    const rows = await queryRows<{ id: string; created_at: Date; state: Subscription }>(
      this.dataSource.manager,
      `select id, created_at, state from subscriptions where ${where.join(' and ')} order by created_at desc, id desc limit $${params.length}`,
      params,
    );
    return keysetPage(rows, {
      limit,
      codec: PAGE_TOKEN,
      key: (row) => ({ createdAt: row.created_at.toISOString(), id: row.id }),
      item: (row) => toSubscriptionView(row.state, now),
    });
  }

  /** Whether any subscription (ended ones too) bills the customer: a first-time-only promotion code is for a customer with none. */
  async hasSubscriptions(environmentId: string, customerId: string): Promise<boolean> {
    const [row] = await queryRows<{ found: boolean }>(
      this.dataSource.manager,
      `select exists (select 1 from subscriptions where environment_id = $1 and customer_id = $2) as found`,
      [environmentId, customerId],
    );
    return row.found;
  }

  /**
   * How many subscriptions of the customer have not ended (recorded status
   * active or cancelled): a cancelled one still bills up to its cancelAt, and
   * its invoices name the customer.
   */
  async runningSubscriptionsOf(environmentId: string, customerId: string): Promise<number> {
    const [row] = await queryRows<{ count: number }>(
      this.dataSource.manager,
      `select count(*)::int as count from subscriptions where environment_id = $1 and customer_id = $2 and status <> 'ended'`,
      [environmentId, customerId],
    );
    return row.count;
  }

  /** The catalog's prices (with their products) of this environment among `ids`. */
  async prices(environmentId: string, ids: readonly string[]): Promise<Map<string, CatalogPrice>> {
    const rows = await queryRows<{ id: string; price: ExistingPrice; product: ExistingProduct | null }>(
      this.dataSource.manager,
      `select p.id, p.state as price, pr.state as product
         from subscription_catalog_prices p
         left join subscription_catalog_products pr on pr.environment_id = p.environment_id and pr.id = (p.state->>'productId')::uuid
        where p.environment_id = $1 and p.id = any($2::uuid[])`,
      [environmentId, ids.filter(isUuid)],
    );
    return new Map(rows.map((row) => [row.id, { price: row.price, product: row.product }]));
  }

  /** The prices a command names (see caughtUpOnMiss): a price that exists is never refused as unknown. */
  pricesNamed(environmentId: string, ids: readonly string[]): Promise<Map<string, CatalogPrice>> {
    return this.caughtUpOnMiss(
      () => this.prices(environmentId, ids),
      (found) => ids.every((id) => found.has(id)),
    );
  }

  /** Which of `codes` are tax codes of the environment (see caughtUpOnMiss: a command's check of the codes it names). */
  async knownTaxCodes(environmentId: string, codes: readonly string[]): Promise<Set<string>> {
    if (codes.length === 0) return new Set();
    const read = async () =>
      new Set(
        (
          await queryRows<{ code: string }>(
            this.dataSource.manager,
            `select state->>'code' as code from subscription_tax_codes where environment_id = $1 and state->>'code' = any($2::text[])`,
            [environmentId, codes],
          )
        ).map((row) => row.code),
      );
    return this.caughtUpOnMiss(read, (found) => codes.every((code) => found.has(code)));
  }

  /**
   * For a command checking the references it names, before it begins its transaction: `read` (of this read model's
   * tables, billable metrics included), and when that misses
   * one of them, `read` again once this read model has caught up with the log as it is now. Something that exists
   * in the log is thus never refused because the read model lags it (a write whose process died before its read
   * models caught up: issue 41 #11); the refusal, kept with an Idempotency-Key, is never given from a lagging read.
   * Never inside a transaction that has written: its own transaction id would hold the catch-up back.
   */
  async caughtUpOnMiss<Found>(read: () => Promise<Found>, complete: (found: Found) => boolean): Promise<Found> {
    const found = await read();
    if (complete(found)) return found;
    await this.runner.catchUp(SUBSCRIPTIONS_PROJECTION);
    return read();
  }

  /** Subscriptions of the environment with billing work due at `now` (oldest first). */
  async dueIn(environmentId: string, now: Date, limit: number): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource.manager,
      `select id from subscriptions where environment_id = $1 and next_work_at <= $2 order by next_work_at, id limit $3`,
      [environmentId, now, limit],
    );
    return rows.map((row) => row.id);
  }

  /** Environments with billing work due by real time (`now`) or, for an environment with a test clock, by its clock. */
  async environmentsWithWork(now: Date, testClocks: boolean): Promise<string[]> {
    const rows = await queryRows<{ environment_id: string }>(
      this.dataSource.manager,
      testClocks
        ? `select distinct s.environment_id from subscriptions s left join environment_clocks c on c.environment_id = s.environment_id
            where s.next_work_at is not null and s.next_work_at <= coalesce(c.now, $1)`
        : `select distinct environment_id from subscriptions where next_work_at <= $1`,
      [now],
    );
    return rows.map((row) => row.environment_id);
  }
}

/** The facts a subscription item is checked against: what the catalog says of the price and its product. */
export function priceFactsOf({ price, product }: CatalogPrice): PriceFacts {
  return {
    id: price.id,
    name: price.name,
    archived: price.status === 'archived',
    currencies: Object.keys(price.pricing),
    purchase: price.purchase,
    termCount: price.termCount ?? null,
    termUnit: price.termUnit ?? null,
    billingTiming: price.billingTiming ?? 'advance',
    product: product ? { id: product.id, name: product.name } : null,
    metricCode: price.metricCode ?? null,
  };
}
