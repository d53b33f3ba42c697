import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `analytics_ledger.usage`: the usage (event_based) charges a subscription event billed, for the MRR answer's
 * `usageRevenue`. Rows written before it count 0: rebuild the read model (`npm run replay` shows the difference).
 */
export class AnalyticsUsageRevenue1764500520000 implements MigrationInterface {
  name = 'AnalyticsUsageRevenue1764500520000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table analytics_ledger add column usage bigint not null default 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table analytics_ledger drop column usage`);
  }
}
