import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery whose destination the address policy refuses is `refused`: it
 * failed at once, without being sent, and is not retried (see
 * delivery/dispatcher.ts). Only the status check changes.
 */
export class WebhookDeliveriesRefusedStatus1763700310000 implements MigrationInterface {
  name = 'WebhookDeliveriesRefusedStatus1763700310000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      alter table webhook_deliveries
        drop constraint webhook_deliveries_status_check,
        add constraint webhook_deliveries_status_check
          check (status in ('pending', 'delivered', 'discarded', 'refused', 'disabled', 'cancelled'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Before this status existed a refused delivery ended, after its retries, as discarded.
    await queryRunner.query(`update webhook_deliveries set status = 'discarded' where status = 'refused'`);
    await queryRunner.query(`
      alter table webhook_deliveries
        drop constraint webhook_deliveries_status_check,
        add constraint webhook_deliveries_status_check
          check (status in ('pending', 'delivered', 'discarded', 'disabled', 'cancelled'))`);
  }
}
