import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { InvoiceDocuments } from './invoice-documents';

/** A booked invoice's recorded document as other contexts see it (the hosted invoice page). */
export interface RecordedInvoiceDocument {
  readonly pdf: Buffer;
  /** The HTML the PDF was laid out from: the template's output, untrusted markup. */
  readonly html: Buffer;
  readonly sha256: string;
  /** The template group's locale (e.g. `fi-FI`). */
  readonly locale: string;
  readonly handle: string | null;
}

/**
 * The recorded document of a booked invoice or credit note (recorded now if the reactor has not yet: the same
 * bytes whoever records them first). A draft is rendered live, so it is refused: the caller asks for booked ones.
 */
export class RecordedInvoiceDocumentQuery extends Query<RecordedInvoiceDocument> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
  ) {
    super();
  }
}

@QueryHandler(RecordedInvoiceDocumentQuery)
export class RecordedInvoiceDocumentHandler implements IQueryHandler<RecordedInvoiceDocumentQuery, RecordedInvoiceDocument> {
  constructor(private readonly documents: InvoiceDocuments) {}

  async execute({ environmentId, invoiceId }: RecordedInvoiceDocumentQuery): Promise<RecordedInvoiceDocument> {
    const document = await this.documents.documentOf(environmentId, invoiceId, undefined);
    if (!document.recorded) throw new Error(`invoice ${invoiceId} is a draft: it has no recorded document`);
    return { pdf: document.pdf, html: document.html, sha256: document.sha256, locale: document.locale, handle: document.handle };
  }
}
