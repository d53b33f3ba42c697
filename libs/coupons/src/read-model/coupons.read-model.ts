import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '@billing/event-store';
import { keysetPage, Page, positionPageToken, Versioned } from '@billing/platform';
import { CouponView, PromotionCodeView } from '../views';

export interface PageRequest {
  readonly limit: number;
  readonly pageToken?: string;
}

type Table = 'coupons' | 'promotion_codes';

/** Reads of `coupons` and `promotion_codes` (every query scoped by environment); lists page newest first by the creating event's position. */
@Injectable()
export class CouponsReadModel {
  constructor(private readonly dataSource: DataSource) {}

  coupon(environmentId: string, id: string): Promise<Versioned<CouponView> | null> {
    return this.find('coupons', environmentId, id);
  }

  promotionCode(environmentId: string, id: string): Promise<Versioned<PromotionCodeView> | null> {
    return this.find('promotion_codes', environmentId, id);
  }

  coupons(environmentId: string, page: PageRequest): Promise<Page<CouponView>> {
    return this.page('coupons', environmentId, page);
  }

  promotionCodes(environmentId: string, page: PageRequest): Promise<Page<PromotionCodeView>> {
    return this.page('promotion_codes', environmentId, page);
  }

  private async find<View>(table: Table, environmentId: string, id: string): Promise<Versioned<View> | null> {
    const [row] = await queryRows<{ view: View; version: number }>(
      this.dataSource.manager,
      `select view, version from ${table} where environment_id = $1 and id = $2`,
      [environmentId, id],
    );
    return row ? new Versioned(row.view, row.version) : null;
  }

  private async page<View>(table: Table, environmentId: string, page: PageRequest): Promise<Page<View>> {
    const values: unknown[] = [environmentId];
    const where = ['environment_id = $1'];
    if (page.pageToken !== undefined) {
      values.push(positionPageToken.decode(page.pageToken).position);
      where.push(`position < $${values.length}`);
    }
    values.push(page.limit + 1);
    const rows = await queryRows<{ view: View; position: string }>(
      this.dataSource.manager,
      `select view, position::text as position from ${table} where ${where.join(' and ')} order by ${table}.position desc limit $${values.length}`,
      values,
    );
    return keysetPage(rows, { limit: page.limit, codec: positionPageToken, key: (row) => ({ position: row.position }), item: (row) => row.view });
  }
}
