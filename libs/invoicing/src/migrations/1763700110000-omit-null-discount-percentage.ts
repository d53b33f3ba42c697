import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Line discounts in stored invoice views lose `percentage: null`: the view now
 * omits the percentage unless the discount is one (the interface does not let
 * it be null). Rewrites the stored JSON in place, so no replay is needed and
 * no invoice disappears from reads while the projection would catch up.
 */
export class OmitNullDiscountPercentage1763700110000 implements MigrationInterface {
  name = 'OmitNullDiscountPercentage1763700110000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      update invoices set view = jsonb_set(view, '{items}', (
        select coalesce(jsonb_agg(
                 case when item->'discount'->'percentage' = 'null'::jsonb
                      then jsonb_set(item, '{discount}', (item->'discount') - 'percentage')
                      else item end
                 order by position), '[]'::jsonb)
          from jsonb_array_elements(view->'items') with ordinality as line(item, position)))
      where jsonb_typeof(view->'items') = 'array'
        and jsonb_path_exists(view, '$.items[*].discount.percentage ? (@ == null)')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      update invoices set view = jsonb_set(view, '{items}', (
        select coalesce(jsonb_agg(
                 case when item->'discount' ? 'percentage' then item
                      else jsonb_set(item, '{discount,percentage}', 'null'::jsonb) end
                 order by position), '[]'::jsonb)
          from jsonb_array_elements(view->'items') with ordinality as line(item, position)))
      where jsonb_typeof(view->'items') = 'array'`);
  }
}
