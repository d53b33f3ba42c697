import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `events_horizon()`: the transaction id below which every transaction that
 * can still append events has ended, so a reader of the log (projections,
 * reactors) never skips an event whose transaction commits late. It was the
 * cluster-wide `pg_snapshot_xmin(pg_current_snapshot())`, which any
 * transaction open in ANY database of the server held back (another
 * service's, a long report's): read-your-writes then waited on strangers.
 * Now an in-progress transaction is left out only when pg_stat_activity
 * shows it belongs to a backend connected to another database (it cannot
 * write this database's events); anything not positively known to be
 * elsewhere (a prepared transaction, a backend the view cannot show) still
 * holds the horizon, as before. Evaluated with the calling statement's
 * snapshot (stable), once per statement.
 */
export class CreateEventsHorizon1764400000000 implements MigrationInterface {
  name = 'CreateEventsHorizon1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create function events_horizon() returns xid8 language sql stable parallel safe as $$
        select coalesce(
          (select min(xid)
             from pg_snapshot_xip(pg_current_snapshot()) as xid
            where (xid::text::bigint % 4294967296) not in (
                    select elsewhere.backend_xid::text::bigint
                      from pg_stat_activity as elsewhere
                     where elsewhere.backend_xid is not null
                       and elsewhere.datid is distinct from (select oid from pg_database where datname = current_database()))),
          pg_snapshot_xmax(pg_current_snapshot()))
      $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop function events_horizon()`);
  }
}
