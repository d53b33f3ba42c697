import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tamper evidence for the log (README, "Audit: history, as-of reads and
 * tamper evidence").
 *
 * - `event_chain` links every event into its environment's hash chain, in
 *   commit order: `sequence` counts from 1 per environment, `hash` is
 *   sha256(previous hash in hex || the event's canonical serialisation), the
 *   first event's previous hash is 64 zeros.
 * - The chain is written by a constraint trigger deferred to commit, so no
 *   writer can skip it: at commit it takes the environment's transaction
 *   advisory lock (held until the commit is visible), so the next committer
 *   in the environment reads this head and chains after it. Chain order is
 *   therefore commit order, whatever the positions (a transaction that
 *   commits late is chained late).
 * - `events` and `event_chain` refuse UPDATE, DELETE and TRUNCATE in the
 *   database itself. A superuser can disable the guards; `npm run
 *   audit:verify` then names the first event whose content or link differs.
 *
 * The canonical serialisation is the text of a jsonb array of the event's
 * columns, as Postgres renders jsonb (`event_canonical` below); the verifier
 * rebuilds the same bytes in Node from the raw columns and hashes them with
 * node:crypto, so it does not trust this function.
 */
export class CreateEventChain1764000000000 implements MigrationInterface {
  name = 'CreateEventChain1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table event_chain (
        environment_id uuid not null,
        sequence bigint not null,
        event_id uuid not null unique,
        previous_hash text not null,
        hash text not null,
        chained_at timestamptz not null default clock_timestamp(),
        primary key (environment_id, sequence)
      )`);
    await queryRunner.query(`
      create function event_canonical(e events) returns text language sql immutable as $$
        select jsonb_build_array(
          e.global_position, e.event_id, e.environment_id, e.stream_type, e.stream_id, e.stream_version,
          e.event_type, e.schema_version, e.data, e.metadata,
          (extract(epoch from e.occurred_at) * 1000000)::bigint
        )::text
      $$`);
    await queryRunner.query(`
      create function chain_event(e events) returns void language plpgsql as $$
      declare
        head_sequence bigint;
        head_hash text;
      begin
        perform pg_advisory_xact_lock(hashtextextended('event-chain:' || e.environment_id::text, 0));
        select c.sequence, c.hash into head_sequence, head_hash
          from event_chain c where c.environment_id = e.environment_id order by c.sequence desc limit 1;
        insert into event_chain (environment_id, sequence, event_id, previous_hash, hash)
        values (e.environment_id, coalesce(head_sequence, 0) + 1, e.event_id, coalesce(head_hash, repeat('0', 64)),
                encode(sha256(convert_to(coalesce(head_hash, repeat('0', 64)) || event_canonical(e), 'UTF8')), 'hex'));
      end
      $$`);
    await queryRunner.query(`
      create function chain_event_at_commit() returns trigger language plpgsql as $$
      begin
        perform chain_event(new);
        return null;
      end
      $$`);
    await queryRunner.query(`
      create constraint trigger events_chain after insert on events
        deferrable initially deferred for each row execute function chain_event_at_commit()`);
    await queryRunner.query(`
      create function refuse_change() returns trigger language plpgsql as $$
      begin
        raise exception '% is append-only: % refused', tg_table_name, tg_op using errcode = 'insufficient_privilege';
      end
      $$`);
    for (const table of ['events', 'event_chain']) {
      await queryRunner.query(`create trigger ${table}_append_only before update or delete on ${table} for each row execute function refuse_change()`);
      await queryRunner.query(`create trigger ${table}_no_truncate before truncate on ${table} for each statement execute function refuse_change()`);
    }
    // Events written before this migration: chained in the order subscribers read them.
    await queryRunner.query(`
      do $$
      declare e events;
      begin
        for e in select * from events order by environment_id, transaction_id, global_position loop
          perform chain_event(e);
        end loop;
      end
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['events', 'event_chain']) {
      await queryRunner.query(`drop trigger ${table}_append_only on ${table}`);
      await queryRunner.query(`drop trigger ${table}_no_truncate on ${table}`);
    }
    await queryRunner.query(`drop trigger events_chain on events`);
    await queryRunner.query(`drop function refuse_change()`);
    await queryRunner.query(`drop function chain_event_at_commit()`);
    await queryRunner.query(`drop function chain_event(events)`);
    await queryRunner.query(`drop function event_canonical(events)`);
    await queryRunner.query(`drop table event_chain`);
  }
}
