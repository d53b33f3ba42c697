import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { keysetPage, Page, positionPageToken, Versioned } from '@billing/platform';
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
      values.push(positionPageToken.decode(page.pageToken).position);
      where.push(`position < $${values.length}`);
    }
    values.push(page.limit + 1);
    const rows = await queryRows<PageRow<View>>(
      this.dataSource.manager,
      `select view, position::text as position from ${table} where ${where.join(' and ')} order by ${table}.position desc limit $${values.length}`,
      values,
    );
    return keysetPage(rows, { limit: page.limit, codec: positionPageToken, key: (row) => ({ position: row.position }), item: (row) => row.view });
  }
}
