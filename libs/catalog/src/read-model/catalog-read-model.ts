import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { decodePageToken, encodePageToken, Page, Versioned } from '@billing/platform';
import { ValidationError } from '@billing/shared-kernel';
import { PriceView, ProductView } from '../views';

export interface PageRequest {
  readonly limit: number;
  /** An opaque token from a previous page's `nextPageToken`. */
  readonly pageToken?: string;
}

export interface PriceFilter {
  readonly archived?: boolean;
  readonly productId?: string;
}

/** The keyset of the catalog lists: the log position of the row's creating event (a bigint, as text). */
interface PositionKey extends Record<string, string> {
  readonly position: string;
}

interface Row<View> {
  view: View;
  version: number;
}

interface PageRow<View> {
  view: View;
  position: string;
}

/**
 * Reads of the catalog's own read models (kept by the catalog.read-model
 * projection). Every query is scoped by the environment; lists page newest
 * first by the creating event's log position.
 */
@Injectable()
export class CatalogReadModel {
  constructor(private readonly dataSource: DataSource) {}

  findPrice(environmentId: string, id: string): Promise<Versioned<PriceView> | null> {
    return this.find('prices', environmentId, id);
  }

  findProduct(environmentId: string, id: string): Promise<Versioned<ProductView> | null> {
    return this.find('products', environmentId, id);
  }

  listPrices(environmentId: string, page: PageRequest, filter: PriceFilter = {}): Promise<Page<PriceView>> {
    const conditions = ['environment_id = $1'];
    const parameters: unknown[] = [environmentId];
    if (filter.archived !== undefined) {
      parameters.push(filter.archived);
      conditions.push(`archived = $${parameters.length}`);
    }
    if (filter.productId !== undefined) {
      parameters.push(filter.productId);
      conditions.push(`product_id = $${parameters.length}`);
    }
    return this.page('prices', conditions, parameters, page);
  }

  listProducts(environmentId: string, page: PageRequest): Promise<Page<ProductView>> {
    return this.page('products', ['environment_id = $1'], [environmentId], page);
  }

  private async find<View>(table: 'prices' | 'products', environmentId: string, id: string): Promise<Versioned<View> | null> {
    const [row] = await queryRows<Row<View>>(this.dataSource.manager, `select view, version from ${table} where environment_id = $1 and id = $2`, [
      environmentId,
      id,
    ]);
    return row ? new Versioned(row.view, row.version) : null;
  }

  private async page<View>(table: 'prices' | 'products', conditions: string[], parameters: unknown[], page: PageRequest): Promise<Page<View>> {
    const where = [...conditions];
    const values = [...parameters];
    if (page.pageToken !== undefined) {
      values.push(positionFromToken(page.pageToken));
      where.push(`position < $${values.length}`);
    }
    values.push(page.limit + 1);
    const rows = await queryRows<PageRow<View>>(
      this.dataSource.manager,
      `select view, position::text as position from ${table} where ${where.join(' and ')} order by ${table}.position desc limit $${values.length}`,
      values,
    );
    const items = rows.slice(0, page.limit);
    const more = rows.length > page.limit;
    return { items: items.map((row) => row.view), nextPageToken: more ? encodePageToken({ position: items[items.length - 1].position }) : null };
  }
}

function positionFromToken(token: string): string {
  const { position } = decodePageToken<PositionKey>(token, ['position']);
  if (typeof position !== 'string' || !/^[1-9]\d{0,17}$/.test(position)) {
    throw ValidationError.at('/query/pageToken', 'is not a page token returned by this service');
  }
  return position;
}
