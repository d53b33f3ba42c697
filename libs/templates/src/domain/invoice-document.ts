import { CommandMetadata, DomainEvent, Evolver, deciderOf } from '@billing/shared-kernel';
import { TemplateType } from './template-types';

/**
 * A booked invoice's document: a legal record, rendered once and never
 * again. One stream per invoice (its id is the invoice id), holding one
 * event. The bytes are stored beside it by the renderer; the event carries
 * their sha256, so the record can be verified whatever happens to the
 * templates (or to the table) afterwards.
 */
export const INVOICE_DOCUMENT_STREAM_TYPE = 'invoice-document';

export interface InvoiceDocumentRenderedData {
  readonly invoiceId: string;
  readonly invoiceType: 'invoice' | 'credit_note';
  readonly handle: string | null;
  readonly templateType: TemplateType;
  /** The group it was rendered with; null: the built-in templates. */
  readonly templateGroupId: string | null;
  /** That group's stream version when the invoice was booked (null for the built-in templates). */
  readonly templateGroupVersion: number | null;
  readonly locale: string;
  /** Set when the group's template failed to render: the built-in template was used instead, and why. */
  readonly fallback: { readonly templateGroupId: string; readonly reason: string } | null;
  readonly sha256: string;
  readonly byteLength: number;
  readonly htmlSha256: string;
  readonly htmlByteLength: number;
  readonly renderedAt: string;
}
export type InvoiceDocumentRendered = DomainEvent<'InvoiceDocumentRendered', InvoiceDocumentRenderedData>;
export type InvoiceDocumentEvent = InvoiceDocumentRendered;

export type InvoiceDocumentState = { readonly status: 'none' } | ({ readonly status: 'rendered' } & InvoiceDocumentRenderedData);

export const invoiceDocumentEvolver: Evolver<InvoiceDocumentState, InvoiceDocumentEvent> = {
  initialState: () => ({ status: 'none' }),
  // The first rendering is the record: a stream never holds a second one (the append expects no stream).
  evolve: (state, event) => (state.status === 'none' && event.type === 'InvoiceDocumentRendered' ? { status: 'rendered', ...event.data } : state),
};

export type RenderedDocument = Omit<InvoiceDocumentRenderedData, 'renderedAt'>;

/** Records a booked invoice's document once: when one is recorded already, nothing (the first rendering stands). */
export function decideRecordInvoiceDocument(document: RenderedDocument, state: InvoiceDocumentState, meta: CommandMetadata): InvoiceDocumentRendered[] {
  if (state.status !== 'none') return [];
  return [{ type: 'InvoiceDocumentRendered', schemaVersion: 1, data: { ...document, renderedAt: meta.now.toISOString() } }];
}

/** The InvoiceDocument aggregate as one value: what it folds (invoiceDocumentEvolver) and what each of its commands decides. */
export const invoiceDocumentDecider = deciderOf(invoiceDocumentEvolver, { RecordInvoiceDocument: decideRecordInvoiceDocument });
