import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import {
  CommandContext,
  CommandPath,
  comparePositions,
  EventStore,
  foldStream,
  LogPosition,
  queryRows,
  RecordedEvent,
  StreamVersionConflictError,
} from '@billing/event-store';
import {
  InvoiceBookedData,
  InvoiceSettlementAddedData,
  invoiceEvolver,
  invoiceStream,
  InvoiceView,
  ResolvedTax,
  resolveTax,
  taxCodeEvolver,
  taxCodeStream,
  toInvoiceView,
  withCurrentTax,
} from '@billing/invoicing';
import { ConflictError, DomainError, DomainEvent, NotFoundError } from '@billing/shared-kernel';
import {
  decideRecordInvoiceDocument,
  defaultTemplateGroupEvolver,
  existingTemplateGroup,
  invoiceDocumentEvolver,
  TemplateGroup,
  templateGroupEvolver,
  TemplateType,
} from '../domain';
import { TemplateRenderError } from '../rendering/liquid-sandbox';
import { RenderedInvoiceDocument } from '../rendering/render-document';
import { RenderPool } from '../rendering/render-pool';
import { defaultTemplateGroupStream, invoiceDocumentStream, templateGroupStream } from '../streams';

/** How many stopped group versions a process remembers (the oldest is forgotten first). */
const STOPPED_GROUPS_KEPT = 1_000;

/** A document as served: the PDF and its HTML. */
export interface InvoiceDocument {
  readonly pdf: Buffer;
  readonly html: Buffer;
  readonly sha256: string;
  readonly htmlSha256: string;
  /** True for a booked invoice's recorded document (the same bytes on every download). */
  readonly recorded: boolean;
  readonly templateGroupId: string | null;
  readonly templateType: TemplateType;
  /** The invoice's number (null on a draft), for the download's file name. */
  readonly handle: string | null;
  /** The locale it was rendered in (the template group's). */
  readonly locale: string;
}

/** A booked invoice's document, rendered and decided, not yet recorded. */
export interface PreparedDocument {
  readonly environmentId: string;
  readonly invoiceId: string;
  readonly events: readonly DomainEvent[];
  /** When it was decided: the booking's time. */
  readonly decidedAt: Date;
  readonly rendered: RenderedInvoiceDocument;
}

interface StoredDocumentRow {
  pdf: Buffer;
  html: Buffer;
  sha256: string;
  html_sha256: string;
}

/**
 * Invoice documents. The invoice comes from invoicing's published language:
 * its stream, read through the event store and folded with invoicing's own
 * evolver into its API view (never invoicing's tables).
 * - A draft renders live, with the named group, else the environment's
 *   default group, else the built-in templates; nothing is stored.
 * - A booked invoice (or credit note) has one document, its legal record:
 *   rendered with the group in force at the booking (the default group and
 *   the group's content as of the InvoiceBooked event's log position), stored
 *   with its sha256 in an InvoiceDocumentRendered event. The reactor does it
 *   when the invoice is booked; a download that comes first does it the same
 *   way. The append expects no stream, so the first rendering wins and
 *   everyone returns its bytes.
 */
@Injectable()
export class InvoiceDocuments {
  private readonly logger = new Logger('InvoiceDocuments');
  /** Group versions whose template a render thread was stopped for at a booking, with why: `environment/group/version`. */
  private readonly stoppedGroups = new Map<string, string>();

  constructor(
    private readonly commands: CommandPath,
    private readonly eventStore: EventStore,
    private readonly dataSource: DataSource,
    private readonly renderer: RenderPool,
  ) {}

  /** GET /invoices/{id}/pdf and /html. `templateGroupId`: for a draft, the group to render with; for a booked invoice, see README. */
  async documentOf(environmentId: string, invoiceId: string, templateGroupId: string | undefined): Promise<InvoiceDocument> {
    const events = await this.eventStore.readStream(invoiceStream(environmentId, invoiceId));
    const booked = events.find((event) => event.type === 'InvoiceBooked');
    if (!booked) {
      const view = await this.draftView(environmentId, events, invoiceId);
      const group = templateGroupId !== undefined ? await this.group(environmentId, templateGroupId) : await this.defaultGroup(environmentId);
      const rendered = await this.renderer.render(view, environmentId, group, { fallBackToBuiltIn: false, documentDate: new Date(view.createdAt) });
      return {
        pdf: rendered.pdf,
        html: rendered.html,
        sha256: rendered.sha256,
        htmlSha256: rendered.htmlSha256,
        recorded: false,
        templateGroupId: rendered.templateGroupId,
        templateType: rendered.templateType,
        handle: view.handle,
        locale: rendered.locale,
      };
    }
    if (templateGroupId !== undefined) await this.group(environmentId, templateGroupId);
    const document = (await this.stored(environmentId, invoiceId)) ?? (await this.recordOnDemand(environmentId, invoiceId));
    if (templateGroupId !== undefined && document.templateGroupId !== templateGroupId) {
      throw new ConflictError(
        'invoice-document-recorded',
        `Invoice ${invoiceId} is booked: its document was recorded with ${document.templateGroupId === null ? 'the built-in templates' : `template group ${document.templateGroupId}`} and never changes; omit templateGroupId.`,
      );
    }
    return document;
  }

  /**
   * Renders a booked invoice's document, reading only (through `manager`,
   * e.g. the reactor's transaction): null when it is recorded already or the
   * invoice is not booked. Kept apart from `store` so that no transaction
   * holds a transaction id while a document renders: an open writing
   * transaction holds back every projection's reading of the log (the event
   * store reads below the oldest one in flight).
   */
  async prepare(environmentId: string, invoiceId: string, manager?: EntityManager): Promise<PreparedDocument | null> {
    const documentStream = invoiceDocumentStream(environmentId, invoiceId);
    if (foldStream(await this.eventStore.readStream(documentStream, manager), invoiceDocumentEvolver).state.status !== 'none') return null;
    const events = await this.eventStore.readStream(invoiceStream(environmentId, invoiceId), manager);
    const bookedIndex = events.findIndex((event) => event.type === 'InvoiceBooked');
    if (bookedIndex < 0) return null;
    const booked = events[bookedIndex];
    const view = invoiceViewOf(events.slice(0, bookedIndex + 1 + creditAppliedAtBooking(events, bookedIndex)), invoiceId);
    const { group, version } = await this.groupInForce(environmentId, booked, manager);
    const options = { fallBackToBuiltIn: true, documentDate: new Date((booked.data as InvoiceBookedData).bookedAt) };
    const rendered = await this.renderAtBooking(view, environmentId, group, version, options);
    if (rendered.fallback)
      this.logger.warn({ msg: 'template failed at booking: the built-in template was used', environmentId, invoiceId, reason: rendered.fallback.reason });
    const decided = decideRecordInvoiceDocument(
      {
        invoiceId,
        invoiceType: view.type,
        handle: view.handle,
        templateType: rendered.templateType,
        templateGroupId: rendered.fallback ? null : rendered.templateGroupId,
        templateGroupVersion: rendered.fallback || group === null ? null : version,
        locale: rendered.locale,
        fallback: rendered.fallback,
        sha256: rendered.sha256,
        byteLength: rendered.pdf.length,
        htmlSha256: rendered.htmlSha256,
        htmlByteLength: rendered.html.length,
      },
      { status: 'none' },
      { now: booked.occurredAt, newId: randomUUID },
    );
    return { environmentId, invoiceId, events: decided, decidedAt: booked.occurredAt, rendered };
  }

  /**
   * A booked invoice's rendering never fails for its group's template: the
   * render thread falls back to the built-in template when the template fails
   * or exceeds a limit it checks itself; here when the thread was stopped
   * (time or memory). A group version stopped once is not tried again by this
   * process: a test-clock advance booking a hundred invoices under it would
   * otherwise hold the documents reactor a time limit per invoice.
   */
  private async renderAtBooking(
    view: InvoiceView,
    environmentId: string,
    group: TemplateGroup | null,
    version: number,
    options: { fallBackToBuiltIn: boolean; documentDate: Date },
  ): Promise<RenderedInvoiceDocument> {
    if (group === null) return this.renderer.render(view, environmentId, null, options);
    const key = `${environmentId}/${group.id}/${version}`;
    const builtIn = async (reason: string) => ({
      ...(await this.renderer.render(view, environmentId, { id: group.id, locale: group.locale, templates: [] }, options)),
      fallback: { templateGroupId: group.id, reason },
    });
    const stopped = this.stoppedGroups.get(key);
    if (stopped !== undefined) return builtIn(stopped);
    try {
      return await this.renderer.render(view, environmentId, group, options);
    } catch (error) {
      if (!(error instanceof TemplateRenderError)) throw error;
      if (this.stoppedGroups.size >= STOPPED_GROUPS_KEPT) this.stoppedGroups.delete(this.stoppedGroups.keys().next().value!);
      this.stoppedGroups.set(key, error.message);
      return builtIn(error.message);
    }
  }

  /**
   * Records a prepared document through the command path (inside the
   * caller's unit of work, if any: the reactor's batch): its event, creating
   * the document's stream, and its bytes. Throws StreamVersionConflictError
   * when another renderer recorded it first.
   */
  store(prepared: PreparedDocument, cause: { correlationId: string; causationId: string | null; actor: string }): Promise<void> {
    const { environmentId, invoiceId, events, decidedAt, rendered } = prepared;
    const context: CommandContext = {
      meta: { now: decidedAt, newId: randomUUID },
      metadata: { actor: cause.actor, requestId: null, correlationId: cause.correlationId, causationId: cause.causationId },
    };
    return this.commands.run(context, 'reject', async (session) => {
      session.append(invoiceDocumentStream(environmentId, invoiceId), events);
      // Bytes already there were recorded with the stream in one transaction: the append (after this) is then the conflict.
      await session.query(
        `insert into invoice_documents (environment_id, invoice_id, pdf, html, sha256, html_sha256) values ($1, $2, $3, $4, $5, $6) on conflict do nothing`,
        [environmentId, invoiceId, rendered.pdf, rendered.html, rendered.sha256, rendered.htmlSha256],
      );
    });
  }

  /** A download before the reactor: the same rendering, then a short transaction; losing the race, it returns the winner's. */
  private async recordOnDemand(environmentId: string, invoiceId: string): Promise<InvoiceDocument> {
    const prepared = await this.prepare(environmentId, invoiceId);
    if (prepared) {
      try {
        await this.store(prepared, { actor: 'system:templates', correlationId: randomUUID(), causationId: null });
      } catch (error) {
        if (!(error instanceof StreamVersionConflictError)) throw error;
      }
    }
    const document = await this.stored(environmentId, invoiceId);
    if (!document) throw new Error(`invoice ${invoiceId}: its document was recorded but its bytes are missing`);
    return document;
  }

  /** A booked invoice's recorded document (null: not recorded yet), never rendering it: the e-mail waits for it. */
  async stored(environmentId: string, invoiceId: string): Promise<InvoiceDocument | null> {
    const [row] = await queryRows<StoredDocumentRow>(
      this.dataSource.manager,
      `select pdf, html, sha256, html_sha256 from invoice_documents where environment_id = $1 and invoice_id = $2`,
      [environmentId, invoiceId],
    );
    if (!row) return null;
    const record = foldStream(await this.eventStore.readStream(invoiceDocumentStream(environmentId, invoiceId)), invoiceDocumentEvolver).state;
    if (record.status === 'none') return null;
    return {
      pdf: row.pdf,
      html: row.html,
      sha256: row.sha256,
      htmlSha256: row.html_sha256,
      recorded: true,
      templateGroupId: record.templateGroupId ?? record.fallback?.templateGroupId ?? null,
      templateType: record.templateType,
      handle: record.handle,
      locale: record.locale,
    };
  }

  /**
   * A draft as GET /invoices/{id} shows it: at its tax codes' current rates
   * (invoicing's own repricing, withCurrentTax, with the codes read from
   * their streams); a total the new rates would push out of range shows the
   * draft as written, as invoicing does.
   */
  private async draftView(environmentId: string, events: readonly RecordedEvent[], invoiceId: string): Promise<InvoiceView> {
    const { state } = foldStream(events, invoiceEvolver);
    if (state.status === 'none') throw new NotFoundError('invoice', invoiceId);
    if (state.type !== 'invoice') return toInvoiceView(state);
    const register = new Map<string, ResolvedTax>();
    for (const code of new Set(state.lines.map((line) => line.tax.taxCode).filter((taxCode): taxCode is string => taxCode !== null))) {
      const taxCode = foldStream(await this.eventStore.readStream(taxCodeStream(environmentId, code)), taxCodeEvolver).state;
      if (taxCode.status !== 'none') register.set(code, resolveTax(taxCode));
    }
    try {
      return toInvoiceView(withCurrentTax(state, register));
    } catch (error) {
      if (error instanceof DomainError) return toInvoiceView(state);
      throw error;
    }
  }

  /** A named group of the environment, or 404. */
  private async group(environmentId: string, templateGroupId: string): Promise<TemplateGroup> {
    const state = foldStream(await this.eventStore.readStream(templateGroupStream(environmentId, templateGroupId)), templateGroupEvolver).state;
    return existingTemplateGroup(state, templateGroupId);
  }

  /** The environment's default group now; null: the built-in templates. */
  private async defaultGroup(environmentId: string): Promise<TemplateGroup | null> {
    const { templateGroupId } = foldStream(await this.eventStore.readStream(defaultTemplateGroupStream(environmentId)), defaultTemplateGroupEvolver).state;
    return templateGroupId === null ? null : this.group(environmentId, templateGroupId);
  }

  /** The default group and its content as of an event's log position (the booking), with the group's version then. */
  private async groupInForce(environmentId: string, at: LogPosition, tx?: EntityManager): Promise<{ group: TemplateGroup | null; version: number }> {
    const before = (events: RecordedEvent[]) => events.filter((event) => comparePositions(event, at) < 0);
    const defaults = before(await this.eventStore.readStream(defaultTemplateGroupStream(environmentId), tx));
    const { templateGroupId } = foldStream(defaults, defaultTemplateGroupEvolver).state;
    if (templateGroupId === null) return { group: null, version: 0 };
    const loaded = foldStream(before(await this.eventStore.readStream(templateGroupStream(environmentId, templateGroupId), tx)), templateGroupEvolver);
    return loaded.state.status === 'none' ? { group: null, version: 0 } : { group: loaded.state, version: loaded.version };
  }
}

/**
 * 1 when the booking applied credit from the customer's balance (the
 * settlement the booking appended right after InvoiceBooked, in its
 * transaction): the document shows the invoice as booked, credit included,
 * so its amount due is what the customer is asked to pay.
 */
function creditAppliedAtBooking(events: readonly RecordedEvent[], bookedIndex: number): number {
  const next = events[bookedIndex + 1];
  const fromBalance = next?.type === 'InvoiceSettlementAdded' && (next.data as InvoiceSettlementAddedData).balanceEntryId != null;
  return fromBalance && next.transactionId === events[bookedIndex].transactionId ? 1 : 0;
}

function invoiceViewOf(events: readonly RecordedEvent[], invoiceId: string): InvoiceView {
  const { state } = foldStream(events, invoiceEvolver);
  if (state.status === 'none') throw new NotFoundError('invoice', invoiceId);
  return toInvoiceView(state);
}
