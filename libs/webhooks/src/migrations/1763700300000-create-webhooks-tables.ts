import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tables of the webhooks context.
 * - `webhook_subscriptions`: read model of the subscription streams (for the
 *   API and the dispatcher), kept by the read-your-writes projection.
 * - `webhook_fanout_targets`: the fan-out projection's own view of which
 *   subscriptions are active, maintained in log order with the fan-out, so an
 *   event reaches exactly the subscriptions that were active before it.
 * - `webhook_notifications`: one row per (event, webhook name), payload data
 *   rendered once at fan-out.
 * - `webhook_deliveries`: the durable outbox, one row per (notification,
 *   subscription), claimed with leases by the dispatchers.
 * - `webhook_delivery_attempts`: every HTTP attempt.
 */
export class CreateWebhooksTables1763700300000 implements MigrationInterface {
  name = 'CreateWebhooksTables1763700300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table webhook_subscriptions (
        environment_id uuid not null,
        id uuid not null,
        seq bigint generated always as identity,
        url text not null,
        version text not null,
        status text not null check (status in ('active', 'disabled', 'unsubscribed')),
        encrypted_signature_key text,
        disabled_reason text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        stream_version integer not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index webhook_subscriptions_listing on webhook_subscriptions (environment_id, seq)`);
    await queryRunner.query(`
      create table webhook_fanout_targets (
        environment_id uuid not null,
        subscription_id uuid not null,
        active boolean not null,
        primary key (environment_id, subscription_id)
      )`);
    await queryRunner.query(`
      create table webhook_notifications (
        environment_id uuid not null,
        id uuid not null,
        event_id uuid not null,
        type text not null,
        occurred_at timestamptz not null,
        data jsonb,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`
      create table webhook_deliveries (
        environment_id uuid not null,
        id uuid not null,
        seq bigint generated always as identity,
        subscription_id uuid not null,
        notification_id uuid not null,
        status text not null check (status in ('pending', 'delivered', 'discarded', 'disabled', 'cancelled')),
        failures integer not null default 0,
        next_attempt_at timestamptz,
        deadline_at timestamptz not null,
        lease_expires_at timestamptz,
        lease_token uuid,
        redelivery boolean not null default false,
        created_at timestamptz not null,
        delivered_at timestamptz,
        last_status_code integer,
        last_error text,
        primary key (environment_id, id),
        unique (environment_id, notification_id, subscription_id),
        foreign key (environment_id, notification_id) references webhook_notifications (environment_id, id)
      )`);
    await queryRunner.query(`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, environment_id, id) where status = 'pending'`);
    await queryRunner.query(`create index webhook_deliveries_by_subscription on webhook_deliveries (environment_id, subscription_id, seq)`);
    await queryRunner.query(`
      create table webhook_delivery_attempts (
        environment_id uuid not null,
        id uuid not null,
        delivery_id uuid not null,
        attempted_at timestamptz not null,
        outcome text not null check (outcome in ('delivered', 'failed')),
        status_code integer,
        error text,
        duration_ms integer not null,
        primary key (environment_id, id),
        foreign key (environment_id, delivery_id) references webhook_deliveries (environment_id, id)
      )`);
    await queryRunner.query(`create index webhook_delivery_attempts_by_delivery on webhook_delivery_attempts (environment_id, delivery_id, attempted_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table webhook_delivery_attempts`);
    await queryRunner.query(`drop table webhook_deliveries`);
    await queryRunner.query(`drop table webhook_notifications`);
    await queryRunner.query(`drop table webhook_fanout_targets`);
    await queryRunner.query(`drop table webhook_subscriptions`);
  }
}
