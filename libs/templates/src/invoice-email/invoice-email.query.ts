import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Parser } from 'htmlparser2';
import { EventStore, foldStream } from '@billing/event-store';
import { invoiceEvolver, invoiceStream, toInvoiceView } from '@billing/invoicing';
import { DEFAULT_LOCALE, templateGroupEvolver, templateOfType } from '../domain';
import { InvoiceDocuments } from '../documents/invoice-documents';
import { BUILT_IN_TEMPLATES, labelsFor } from '../rendering/default-templates';
import { documentBudget } from '../rendering/document-budget';
import { documentVariables } from '../rendering/document-variables';
import { renderTemplate, TemplateRenderError } from '../rendering/liquid-sandbox';
import { templateGroupStream } from '../streams';

/** A booked invoice's e-mail: subject, bodies and the recorded PDF (the exact bytes its document event names). */
export interface InvoiceEmailContent {
  readonly handle: string | null;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly pdf: Buffer;
  readonly sha256: string;
}

/**
 * The e-mail of a booked invoice, for the e-mail context (templates'
 * published query): null while its document is not recorded, so a mail waits
 * for the PDF rather than leaving without it. The body is the
 * `invoice_email_html` template of the group the document was rendered with
 * (its content now; the built-in one for the built-in templates or when the
 * group's template fails), rendered in the same sandbox and locale as the
 * documents, with the invoice as it stands now (its amount due).
 */
export class InvoiceEmailQuery extends Query<InvoiceEmailContent | null> {
  constructor(
    readonly environmentId: string,
    readonly invoiceId: string,
  ) {
    super();
  }
}

@QueryHandler(InvoiceEmailQuery)
export class InvoiceEmailHandler implements IQueryHandler<InvoiceEmailQuery, InvoiceEmailContent | null> {
  constructor(
    private readonly documents: InvoiceDocuments,
    private readonly eventStore: EventStore,
  ) {}

  async execute({ environmentId, invoiceId }: InvoiceEmailQuery): Promise<InvoiceEmailContent | null> {
    const document = await this.documents.stored(environmentId, invoiceId);
    if (!document) return null;
    const { state } = foldStream(await this.eventStore.readStream(invoiceStream(environmentId, invoiceId)), invoiceEvolver);
    if (state.status === 'none') return null;
    const invoice = toInvoiceView(state);
    const group =
      document.templateGroupId === null
        ? null
        : foldStream(await this.eventStore.readStream(templateGroupStream(environmentId, document.templateGroupId)), templateGroupEvolver).state;
    const existing = group && group.status !== 'none' ? group : null;
    const locale = existing?.locale ?? DEFAULT_LOCALE;
    const variables = documentVariables(invoice, environmentId, locale);
    const settings = { locale, currency: invoice.currency };
    const limit = documentBudget(invoice, 0).outputCharacters;
    const builtIn = BUILT_IN_TEMPLATES.invoice_email_html;
    let html: string;
    try {
      html = renderTemplate((existing && templateOfType(existing, 'invoice_email_html')?.content) ?? builtIn, variables, settings, limit);
    } catch (error) {
      // A group's template that fails does not hold the mail back: the built-in body goes instead, as for documents.
      if (!(error instanceof TemplateRenderError)) throw error;
      html = renderTemplate(builtIn, variables, settings, limit);
    }
    const labels = labelsFor(locale);
    const subject = `${invoice.type === 'credit_note' ? labels.creditNote : labels.invoice} ${invoice.handle ?? ''}`.trim();
    return { handle: invoice.handle, subject, html, text: textOf(html), pdf: document.pdf, sha256: document.sha256 };
  }
}

/** The plain-text alternative: the HTML's text, one line per block element, whitespace collapsed. */
export function textOf(html: string): string {
  const blocks = new Set(['p', 'div', 'br', 'tr', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'section']);
  let text = '';
  const parser = new Parser(
    {
      ontext: (chunk) => (text += chunk),
      onopentag: (name) => blocks.has(name) && (text += '\n'),
      onclosetag: (name) => blocks.has(name) && (text += '\n'),
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}
