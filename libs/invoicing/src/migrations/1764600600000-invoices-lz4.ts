import { MigrationInterface, QueryRunner } from 'typeorm';
import { defaultCompression, lz4WherePossible } from '@billing/event-store';

const COLUMNS = ['view', 'state'];

/** `invoices`' view and state compressed with lz4 where Postgres has it: written once per invoice event and by every rebuild. */
export class InvoicesLz41764600600000 implements MigrationInterface {
  name = 'InvoicesLz41764600600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(lz4WherePossible('invoices', COLUMNS));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(defaultCompression('invoices', COLUMNS));
  }
}
