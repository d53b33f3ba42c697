import { MigrationInterface, QueryRunner } from 'typeorm';
import { redactClearPaymentTokensSql } from '@billing/platform';

/**
 * Issue 41 #20: payment-method tokens are sealed where they enter; customer rows folded from earlier events still
 * hold a default payment method's token in clear. They are redacted to their hint, as the projection now writes them;
 * a subscription that takes the customer's default reads the token from the customer's events (CustomerRecordQuery).
 */
export class RedactCustomerPaymentTokens1764701200000 implements MigrationInterface {
  name = 'RedactCustomerPaymentTokens1764701200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(redactClearPaymentTokensSql('customers', ['defaultPaymentMethod', 'token']));
  }

  async down(): Promise<void> {
    // A redacted token cannot be restored; the rows are rebuilt from the events by a projection rebuild if needed.
  }
}
