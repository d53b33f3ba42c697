import { Injectable } from '@nestjs/common';
import { JsonText, ResourcePresenter } from '@billing/platform';
import { InvoiceView } from '../read-model/invoice-view';
import { InvoicingReadModel, InvoiceViewText } from '../read-model/invoicing.read-model';
import { HostedLinks } from './hosted-links';

/** GET /invoices/{id} (live or `?asOf=`) and every write's answer: the stored view and the hosted page link. */
export type InvoiceDetail = InvoiceView & { readonly hostedInvoiceUrl: string | null };

/**
 * The one place an invoice view becomes its InvoiceDetail: the view (which is what the log and the notifications
 * hold) plus `hostedInvoiceUrl`, which depends on this server's key and base URL. Live reads, write answers and
 * as-of reads all go through it, so they answer the same members.
 */
@Injectable()
export class InvoiceDetails implements ResourcePresenter {
  constructor(
    private readonly links: HostedLinks,
    private readonly readModel: InvoicingReadModel,
  ) {}

  /** A write's answer: the view its command left, with the link of that state. */
  of(environmentId: string, view: InvoiceView, hostedLinkVersion: number | undefined): InvoiceDetail {
    return { ...view, hostedInvoiceUrl: this.links.urlOf(environmentId, { id: view.id, status: view.status, hostedLinkVersion }) };
  }

  /** A live read: the stored view as Postgres prints it plus the link, never parsed or re-serialized (the hottest read). */
  ofStored(environmentId: string, { json, ...linked }: InvoiceViewText): JsonText {
    return json.withMember('hostedInvoiceUrl', this.links.urlOf(environmentId, linked));
  }

  /**
   * An as-of read: the invoice as it was, with its link as it is now (a link of then may open nothing after a
   * rotation): null while the invoice is a draft now.
   */
  async present(environmentId: string, view: InvoiceView): Promise<InvoiceDetail> {
    const current = await this.readModel.invoice(environmentId, view.id);
    return { ...view, hostedInvoiceUrl: current ? this.links.urlOf(environmentId, current.resource) : null };
  }
}
