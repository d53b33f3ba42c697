import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Reactor, RecordedEvent, StreamVersionConflictError } from '@billing/event-store';
import { INVOICE_STREAM, InvoiceBookedData } from '@billing/invoicing';
import { RenderPoolClosedError } from '../rendering/render-pool';
import { InvoiceDocuments } from './invoice-documents';

/**
 * Renders and records every booked invoice's document when it is booked
 * (InvoiceBooked), in the reactor's batch transaction with its checkpoint.
 * Never stalls: a group's template that fails falls back to the built-in one
 * (recorded in the event), a download that recorded it first makes it a no-op,
 * and anything else is logged and left to the first download (each event has
 * its own savepoint, so one failure does not undo the batch's others). A
 * shutdown mid-batch rolls the batch back, for the next process to redo.
 */
@Injectable()
export class InvoiceDocumentReactor implements Reactor {
  readonly name = 'templates.invoice-documents';
  readonly streamTypes = [INVOICE_STREAM];
  private readonly logger = new Logger('InvoiceDocumentReactor');

  constructor(private readonly documents: InvoiceDocuments) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    for (const event of events) {
      if (event.type !== 'InvoiceBooked') continue;
      const { invoiceId } = event.data as InvoiceBookedData;
      await tx.query('savepoint invoice_document');
      try {
        await this.documents.record(event.environmentId, invoiceId, tx, { actor: 'system:templates', correlationId: event.metadata.correlationId, causationId: event.eventId });
        await tx.query('release savepoint invoice_document');
      } catch (error) {
        await tx.query('rollback to savepoint invoice_document');
        if (error instanceof StreamVersionConflictError) continue;
        // Shutting down: undo the batch (its checkpoint stays), the next process renders these.
        if (error instanceof RenderPoolClosedError) throw error;
        this.logger.error({ msg: 'an invoice document could not be recorded at booking; the first download records it', environmentId: event.environmentId, invoiceId, error: String(error) });
      }
    }
  }
}
