import { MigrationInterface, QueryRunner } from 'typeorm';
import { defaultCompression, lz4WherePossible } from '@billing/event-store';

const COLUMNS = ['state'];

/** `analytics_invoices`' state compressed with lz4 where Postgres has it: written once per invoice event and by every rebuild. */
export class AnalyticsInvoicesLz41764600620000 implements MigrationInterface {
  name = 'AnalyticsInvoicesLz41764600620000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lz4WherePossible('analytics_invoices', COLUMNS));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(defaultCompression('analytics_invoices', COLUMNS));
  }
}
