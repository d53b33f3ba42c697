import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `invoicing.read-model` projection evolves its rows instead of folding
 * streams again: each row stores the aggregate's state.
 * - `invoices.state`: rows written before this have none; the projection
 *   folds such a row from its stream the first time it needs its state, so no
 *   replay is needed and no invoice disappears from reads meanwhile.
 * - `tax_codes.state`: filled from the row itself (its view holds every member
 *   of a tax code; the rate becomes basis points, as the events now carry it),
 *   then required.
 */
export class StoreInvoicingState1763700120000 implements MigrationInterface {
  name = 'StoreInvoicingState1763700120000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table invoices add column state jsonb`);
    await queryRunner.query(`alter table tax_codes add column state jsonb`);
    await queryRunner.query(`
      update tax_codes set state = jsonb_build_object(
        'status', 'active', 'code', code, 'rateBasisPoints', (rate * 10000)::int, 'taxable', taxable,
        'description', view->'description', 'createdAt', view->'createdAt', 'updatedAt', view->'updatedAt')`);
    await queryRunner.query(`alter table tax_codes alter column state set not null`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table tax_codes drop column state`);
    await queryRunner.query(`alter table invoices drop column state`);
  }
}
