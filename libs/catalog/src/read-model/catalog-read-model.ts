import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { decodePageToken, encodePageToken, Page } from '@billing/platform';
import { ValidationError } from '@billing/shared-kernel';
import { PriceView, ProductView } from '../domain';

export interface Versioned<View> {
  readonly view: View;
  readonly version: number;
}

export interface PageRequest {
  readonly limit: number;
  /** An opaque token from a previous page's `nextPageToken`. */
  readonly pageToken?: string;
}

export interface PriceFilter {
  readonly archived?: boolean;
  readonly productId?: string;
}

interface Row<View> {
  view: View;
  version: number;
}

interface PageRow<View> {
  view: View;
  /** The row's position as text (bigint), the keyset of the next page. */
  cursor: string;
}

/**
 * Reads of the catalog's own read models. Every query is scoped by the
 * environment; lists page newest first by the creating event's log position.
 */
@Injectable()
export class CatalogReadModel {
  constructor(private readonly dataSource: DataSource) {}

  async findPrice(environmentId: string, id: string): Promise<Versioned<PriceView> | null> {
    const [row] = await queryRows<Row<PriceView>>(this.dataSource.manager, `select view, version from prices where environment_id = $1 and id = $2`, [
      environmentId,
      id,
    ]);
    return row ? { view: row.view, version: row.version } : null;
  }

  async listPrices(environmentId: string, page: PageRequest, filter: PriceFilter = {}): Promise<Page<PriceView>> {
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

  async findProduct(environmentId: string, id: string): Promise<Versioned<ProductView> | null> {
    const [row] = await queryRows<Row<ProductView>>(
      this.dataSource.manager,
      `select view, version from products where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row ? { view: row.view, version: row.version } : null;
  }

  async productExists(environmentId: string, id: string): Promise<boolean> {
    return (await this.findProduct(environmentId, id)) !== null;
  }

  async listProducts(environmentId: string, page: PageRequest): Promise<Page<ProductView>> {
    return this.page('products', ['environment_id = $1'], [environmentId], page);
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
      `select view, position::text as cursor from ${table} where ${where.join(' and ')} order by ${table}.position desc limit $${values.length}`,
      values,
    );
    const items = rows.slice(0, page.limit);
    const more = rows.length > page.limit;
    return { items: items.map((row) => row.view), nextPageToken: more ? encodePageToken({ p: items[items.length - 1].cursor }) : null };
  }
}

function positionFromToken(token: string): string {
  const { p } = decodePageToken<{ p: string }>(token, ['p']);
  if (typeof p !== 'string' || !/^[1-9]\d{0,17}$/.test(p)) {
    throw ValidationError.at('/query/pageToken', 'is not a page token returned by this service');
  }
  return p;
}
