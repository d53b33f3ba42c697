import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DataSource, EntityManager } from 'typeorm';
import { AggregateStore, queryRows, StreamAppend, toNewEvents } from '@billing/event-store';
import { assertIfMatch, eventMetadataFor } from '@billing/platform';
import {
  creditNoteApplication,
  decideApplyCreditNote,
  decideBookInvoice,
  formatInvoiceHandle,
  invoiceEvolver,
  InvoiceType,
  InvoiceView,
  taxCodesOf,
  toInvoiceView,
} from '../domain';
import { InvoicingReadModel } from '../infrastructure/invoicing.read-model';
import { existingInvoice, invoiceStream, Versioned } from '../infrastructure/streams';
import { BookInvoiceCommand } from './book-invoice.command';

/**
 * Books a draft. The handle is the next number of the environment's counter
 * for the invoice type, taken in the same transaction as the append: the
 * counter row stays locked until commit, so numbers are handed out in commit
 * order, and a booking that fails (a rule, a version conflict) rolls its number
 * back: no gaps, no duplicates. Booking a credit note also applies it to the
 * invoice it credits (a settlement on each, see decideApplyCreditNote), in the
 * same transaction. A draft invoice is booked at the current rates of its tax
 * codes.
 */
@CommandHandler(BookInvoiceCommand)
export class BookInvoiceHandler implements ICommandHandler<BookInvoiceCommand, Versioned<InvoiceView>> {
  constructor(
    private readonly store: AggregateStore,
    private readonly dataSource: DataSource,
    private readonly readModel: InvoicingReadModel,
  ) {}

  async execute({ caller, invoiceId, date, ifMatch, meta }: BookInvoiceCommand): Promise<Versioned<InvoiceView>> {
    const stream = invoiceStream(caller.environmentId, invoiceId);
    const { booked, result } = await this.dataSource.transaction(async (tx) => {
      const { state, version } = await this.store.load(stream, invoiceEvolver, tx);
      const invoice = existingInvoice(state, invoiceId);
      assertIfMatch(ifMatch, version);
      const handle = formatInvoiceHandle(invoice.type, await this.nextNumber(tx, caller.environmentId, invoice.type));
      // A draft invoice is booked at its tax codes' current rates, which the booked lines then keep.
      const taxes = await this.readModel.taxRegister(caller.environmentId, taxCodesOf(invoice), tx);
      const events = decideBookInvoice({ invoiceId, handle, date, taxes }, state, meta);
      let after = events.reduce(invoiceEvolver.evolve, state);
      const appends: StreamAppend[] = [];

      // A credit note is applied to the invoice it credits in the same append. The invoice is loaded
      // after the number was taken: the counter row serialises bookings of one type, so a credit note
      // booked just before this one is already visible; its expected version catches any other writer.
      const application = creditNoteApplication(after);
      if (application) {
        const creditedStream = invoiceStream(caller.environmentId, application.invoiceId);
        const credited = await this.store.load(creditedStream, invoiceEvolver, tx);
        const { invoiceEvents, creditNoteEvents } = decideApplyCreditNote(application, credited.state, after, meta);
        events.push(...creditNoteEvents);
        after = creditNoteEvents.reduce(invoiceEvolver.evolve, after);
        if (invoiceEvents.length > 0) appends.push({ stream: creditedStream, expectedVersion: credited.version, events: toNewEvents(invoiceEvents, meta) });
      }
      appends.unshift({ stream, expectedVersion: version, events: toNewEvents(events, meta) });
      const appended = await this.store.append(appends, eventMetadataFor(caller), tx);
      return { booked: { view: toInvoiceView(existingInvoice(after, invoiceId)), version: appended.nextVersions[0] }, result: appended };
    });
    await this.store.awaitReadModels(result);
    return booked;
  }

  private async nextNumber(tx: EntityManager, environmentId: string, type: InvoiceType): Promise<number> {
    const [row] = await queryRows<{ last: string }>(
      tx,
      `insert into invoice_number_sequences (environment_id, type, last) values ($1, $2, 1)
       on conflict (environment_id, type) do update set last = invoice_number_sequences.last + 1
       returning last::text`,
      [environmentId, type],
    );
    return Number(row.last);
  }
}
