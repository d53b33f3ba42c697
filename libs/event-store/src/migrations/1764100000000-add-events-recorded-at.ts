import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `recorded_at`: when the event was appended, on the real (base) clock,
 * beside `occurred_at`, its environment's time (a test clock may be years
 * ahead). What runs in real time (a webhook's retries, the wait before an
 * unknown payment outcome is looked up) counts from it. Not part of the
 * canonical serialisation the hash chain covers. Events appended before this
 * column existed read their `occurred_at` instead.
 */
export class AddEventsRecordedAt1764100000000 implements MigrationInterface {
  name = 'AddEventsRecordedAt1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table events add column recorded_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table events drop column recorded_at`);
  }
}
