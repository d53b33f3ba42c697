import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Stripe adapter's own records:
 * - stripe_payment_intents: per (environment, payment id) the exact create request sent (before it is sent) and the
 *   PaymentIntent id once Stripe answered, so a lookup repeats the very same request under the same Idempotency-Key
 *   (Stripe answers the stored result instead of charging again), and an event's intent finds its payment;
 * - stripe_webhook_events: the Stripe events already handled, per environment (a redelivery changes nothing).
 */
export class CreateStripeGatewayTables1764500300000 implements MigrationInterface {
  name = 'CreateStripeGatewayTables1764500300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table stripe_payment_intents (
        environment_id uuid not null,
        reference text not null,
        params jsonb not null,
        payment_intent_id text,
        created_at timestamptz not null default now(),
        primary key (environment_id, reference)
      )`);
    await queryRunner.query(`create unique index stripe_payment_intents_by_intent on stripe_payment_intents (environment_id, payment_intent_id)`);
    await queryRunner.query(`
      create table stripe_webhook_events (
        environment_id uuid not null,
        event_id text not null,
        type text not null,
        received_at timestamptz not null default now(),
        primary key (environment_id, event_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table stripe_webhook_events`);
    await queryRunner.query(`drop table stripe_payment_intents`);
  }
}
