import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The templates context's tables.
 * - `template_groups`: the read model of the groups, written only by the
 *   `templates.read-model` projection (rebuildable): state folded from the
 *   events, the view, the version (ETag) and the creating event's position
 *   (the newest-first keyset).
 * - `invoice_documents`: the bytes of booked invoices' documents, written by
 *   the renderer in the same transaction as the InvoiceDocumentRendered event
 *   that records their sha256. Not a projection: a rebuild never touches it
 *   (the bytes are the record; re-rendering could give other bytes).
 */
export class CreateTemplatesTables1764000400000 implements MigrationInterface {
  name = 'CreateTemplatesTables1764000400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table template_groups (
        environment_id uuid not null,
        id uuid not null,
        position bigint not null,
        version integer not null,
        state jsonb not null,
        view jsonb not null,
        primary key (environment_id, id)
      )`);
    await queryRunner.query(`create index template_groups_newest_first on template_groups (environment_id, position desc)`);
    await queryRunner.query(`
      create table invoice_documents (
        environment_id uuid not null,
        invoice_id uuid not null,
        pdf bytea not null,
        html bytea not null,
        sha256 text not null,
        html_sha256 text not null,
        primary key (environment_id, invoice_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table invoice_documents`);
    await queryRunner.query(`drop table template_groups`);
  }
}
