import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored Price views lose `description: null`, `termCount: null` and
 * `termUnit: null`: the view now omits what does not apply (the interface does
 * not let these be null). Rewrites the stored JSON in place; the aggregate
 * state beside it is unchanged.
 */
export class OmitNullPriceMembers1763700210000 implements MigrationInterface {
  name = 'OmitNullPriceMembers1763700210000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const member of ['description', 'termCount', 'termUnit']) {
      await queryRunner.query(`update prices set view = view - $1::text where view -> $1::text = 'null'::jsonb`, [member]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const member of ['description', 'termCount', 'termUnit']) {
      await queryRunner.query(`update prices set view = jsonb_set(view, array[$1::text], 'null'::jsonb) where not view ? $1::text`, [member]);
    }
  }
}
