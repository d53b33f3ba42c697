import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored invoice views gain `uncollectible` (false: no invoice was marked
 * before the mark existed). Rewrites the stored JSON in place, so no replay
 * is needed; the stored states need nothing (a missing mark folds as false).
 */
export class AddInvoiceViewUncollectible1764200100000 implements MigrationInterface {
  name = 'AddInvoiceViewUncollectible1764200100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`update invoices set view = view || '{"uncollectible": false}'::jsonb where not view ? 'uncollectible'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`update invoices set view = view - 'uncollectible'`);
  }
}
