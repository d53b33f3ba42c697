import { InvoiceDocumentRenderedData, InvoiceDocumentState, TemplateGroupState, TemplateType } from './domain';

/** A template group as the API returns it (README "Templates and invoice documents"). */
export interface TemplateGroupView {
  readonly id: string;
  readonly name: string;
  readonly locale: string;
  /** Whether it is the environment's default group (answered by the API; notifications leave it out). */
  readonly isDefault?: boolean;
  readonly templates: readonly { readonly id: string; readonly type: TemplateType; readonly content: string }[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export function templateGroupViewOf(state: TemplateGroupState): TemplateGroupView | null {
  if (state.status === 'none') return null;
  return {
    id: state.id,
    name: state.name,
    locale: state.locale,
    templates: state.templates.map(({ id, type, content }) => ({ id, type, content })),
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}

export function withDefault(view: TemplateGroupView, defaultGroupId: string | null): TemplateGroupView {
  const { templates, createdAt, updatedAt, ...head } = view;
  return { ...head, isDefault: view.id === defaultGroupId, templates, createdAt, updatedAt };
}

/** The record of a booked invoice's document, as invoice.document_rendered carries it: the event's data. */
export type InvoiceDocumentView = InvoiceDocumentRenderedData;

export function invoiceDocumentViewOf(state: InvoiceDocumentState): InvoiceDocumentView | null {
  if (state.status === 'none') return null;
  const { status: _status, ...view } = state;
  return view;
}
