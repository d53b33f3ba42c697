import { MigrationInterface, QueryRunner } from 'typeorm';
import { redactClearPaymentTokensSql } from '@billing/platform';

/**
 * Issue 41 #20: payment-method tokens are sealed where they enter; the rows
 * this read model folded from earlier events still hold them in clear. They
 * are redacted to their hint, as the projection now writes them (nothing
 * charges with a read model's copy: commands read the stream's events).
 */
export class RedactSubscriptionPaymentTokens1764601100000 implements MigrationInterface {
  name = 'RedactSubscriptionPaymentTokens1764601100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(redactClearPaymentTokensSql('subscriptions', ['paymentMethod', 'token']));
  }

  async down(): Promise<void> {
    // A redacted token cannot be restored; the rows are rebuilt from the events by a projection rebuild if needed.
  }
}
