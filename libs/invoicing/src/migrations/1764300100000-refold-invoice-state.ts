import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Invoice state gained what credit notes with a disposition need
 * (paidThroughPayments, creditNoteRefundsOutstanding, lineCredits,
 * creditNote, a settlement's paymentId): the stored states are dropped, and
 * the projection folds each row from its stream the first time a batch needs
 * it (see StoreInvoicingState1763700120000). Their views get the two new
 * members meanwhile: what the invoice's credit notes credit (from the state
 * being dropped) and no disposition (no credit note had one before).
 */
export class RefoldInvoiceState1764300100000 implements MigrationInterface {
  name = 'RefoldInvoiceState1764300100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      update invoices set state = null,
        view = view || jsonb_build_object('creditedAmount', coalesce((state->>'creditedAmount')::bigint, 0), 'creditNote', null)`);
  }

  async down(): Promise<void> {
    // Nothing to undo: a row without state is folded from its stream again.
  }
}
