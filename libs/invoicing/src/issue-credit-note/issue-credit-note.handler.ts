import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CommandPath, CommandSession, Written } from '@billing/event-store';
import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import {
  customerEvolver,
  decideCreditNoteBalanceEntry,
  decideIssueCreditNote,
  formatInvoiceHandle,
  InvoiceEvent,
  invoiceEvolver,
  InvoiceState,
} from '../domain';
import { takeInvoiceNumbers } from '../invoice-numbers';
import { InvoiceDirectRefundsQuery, invoicePaymentLock } from '../ports';
import { customerStream, invoiceStream } from '../streams';
import { IssueCreditNoteCommand } from './issue-credit-note.command';

/**
 * Creates, books and applies a credit note with its disposition in one
 * transaction over the new credit note's stream, the invoice's stream and the
 * credit-note number counter. The number is taken first: the counter row
 * stays locked until commit, so a credit note issued at the same moment for
 * the same invoice waits and then decides on the invoice as the first one
 * left it (never crediting beyond it); the invoice's loaded version catches
 * any other writer (a payment's settlement: retried on a fresh load, up to
 * twice; a client's If-Match that is stale is a 409, never retried). A
 * refused credit note rolls its number back: the sequence stays gapless.
 * Its refundAmount is decided under the invoice's payment lock, which a
 * direct refund of a payment takes too, leaving what direct refunds under
 * way take (their settlements follow later): the two never refund the same
 * money twice.
 */
@CommandHandler(IssueCreditNoteCommand)
export class IssueCreditNoteHandler implements ICommandHandler<IssueCreditNoteCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly queries: QueryBus,
  ) {}

  async execute({ environmentId, input, context, expectedVersion }: IssueCreditNoteCommand): Promise<Written<InvoiceState>> {
    const { meta } = context;
    const creditNoteId = meta.newId();
    const invoice = invoiceStream(environmentId, input.invoiceId);
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const handle = formatInvoiceHandle('credit_note', await takeInvoiceNumbers(session, environmentId, 'credit_note', 1));
      const lock = invoicePaymentLock(environmentId, input.invoiceId);
      await session.query(lock.sql, lock.parameters);
      const { state } = await session.load(invoice, invoiceEvolver, expectedVersion);
      const directRefundsUnderway = await this.queries.execute(new InvoiceDirectRefundsQuery(environmentId, input.invoiceId, session.tx));
      const { invoiceEvents, creditNoteEvents } = decideIssueCreditNote({ ...input, creditNoteId, handle, directRefundsUnderway }, state, meta);
      session.append(invoice, invoiceEvents);
      await this.creditCustomer(session, environmentId, state, creditNoteEvents, meta);
      const version = session.append(invoiceStream(environmentId, creditNoteId), creditNoteEvents);
      return { id: creditNoteId, version, state: foldEvents(invoiceEvolver, creditNoteEvents) };
    });
  }

  /**
   * The credit note's creditAmount becomes a `credit_note` entry on the
   * balance of the customer record the invoice is made out to, appended with
   * the customer stream's loaded version (a concurrent writer: retried). An
   * inline one-off customer has no balance: the amount stays on the credit note.
   */
  private async creditCustomer(
    session: CommandSession,
    environmentId: string,
    invoice: InvoiceState,
    creditNoteEvents: readonly InvoiceEvent[],
    meta: CommandMetadata,
  ) {
    const creditNote = foldEvents(invoiceEvolver, creditNoteEvents);
    if (invoice.status === 'none' || invoice.customerId == null || creditNote.status === 'none' || !creditNote.creditNote?.creditAmount) return;
    const customer = customerStream(environmentId, invoice.customerId);
    const { state } = await session.load(customer, customerEvolver);
    const command = {
      entryId: meta.newId(),
      creditNoteId: creditNote.id,
      creditNoteHandle: creditNote.handle,
      creditAmount: creditNote.creditNote.creditAmount,
    };
    session.append(customer, decideCreditNoteBalanceEntry(command, invoice, state, meta));
  }
}
