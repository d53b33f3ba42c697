import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Reactor, RecordedEvent, StreamVersionConflictError, UnitOfWork, withinUnitOfWork } from '@billing/event-store';
import { INVOICE_STREAM, InvoiceBookedData } from '@billing/invoicing';
import { RenderPoolClosedError, RenderQueueFullError } from '../rendering/render-pool';
import { InvoiceDocuments, PreparedDocument } from './invoice-documents';

/**
 * Renders and records every booked invoice's document when it is booked
 * (InvoiceBooked), in the reactor's batch transaction with its checkpoint.
 * Never stalls: a group's template that fails or is stopped at a limit falls
 * back to the built-in one (recorded in the event), a download that recorded it first makes it a
 * no-op, and a document that cannot be rendered is logged and left to the
 * first download. A shutdown mid-batch, or a failure to write, rolls the
 * batch back, for the runner to redo.
 */
@Injectable()
export class InvoiceDocumentReactor implements Reactor {
  readonly name = 'templates.invoice-documents';
  readonly streamTypes = [INVOICE_STREAM];
  readonly eventTypes = ['InvoiceBooked'];
  private readonly logger = new Logger('InvoiceDocumentReactor');

  constructor(private readonly documents: InvoiceDocuments) {}

  async react(events: readonly RecordedEvent[], tx: EntityManager): Promise<void> {
    // First render every booked invoice of the batch, reading only: the batch's transaction gets no
    // transaction id while documents render (a writing transaction held open would hold back every
    // projection's reading of the log).
    const prepared: { event: RecordedEvent; document: PreparedDocument }[] = [];
    for (const event of events) {
      if (event.type !== 'InvoiceBooked') continue;
      const { invoiceId } = event.data as InvoiceBookedData;
      try {
        const document = await this.documents.prepare(event.environmentId, invoiceId, tx);
        if (document) prepared.push({ event, document });
      } catch (error) {
        // Shutting down, or the environment's renders queue full: undo the batch (its checkpoint stays), to be redone.
        if (error instanceof RenderPoolClosedError || error instanceof RenderQueueFullError) throw error;
        this.logger.error({
          msg: 'an invoice document could not be rendered at booking; the first download records it',
          environmentId: event.environmentId,
          invoiceId,
          error: String(error),
        });
      }
    }
    // Then record them, each its own pass through the command path in the batch's unit of work (a savepoint each).
    const unit = new UnitOfWork(tx);
    try {
      await withinUnitOfWork(unit, async () => {
        for (const { event, document } of prepared) {
          try {
            await this.documents.store(document, { actor: 'system:templates', correlationId: event.metadata.correlationId, causationId: event.eventId });
          } catch (error) {
            // A download recorded it first: its record stands.
            if (!(error instanceof StreamVersionConflictError)) throw error;
          }
        }
      });
    } finally {
      unit.close();
    }
  }
}
