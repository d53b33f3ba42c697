import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { CommandPath, CommandSession, Written } from '@billing/event-store';
import {
  BookInvoice,
  creditNoteApplication,
  customerEvolver,
  CustomerState,
  decideApplyCustomerCredit,
  invoiceCustomerOf,
  decideApplyCreditNote,
  decideBookInvoice,
  formatInvoiceHandle,
  invoiceEvolver,
  InvoiceEvent,
  InvoiceState,
  InvoiceType,
  taxCodesOf,
} from '../domain';
import { takeInvoiceNumbers } from '../invoice-numbers';
import { customerStream, invoiceStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { BookInvoiceCommand, ReservedInvoiceNumber } from './book-invoice.command';

/**
 * Books a draft, in one transaction with what is this command's own:
 * - the handle is the next number of the environment's counter for the
 *   invoice type, taken in the transaction of the append: the counter row
 *   stays locked until commit, so numbers are handed out in commit order, and
 *   a booking that fails (a rule, a version conflict) rolls its number back:
 *   no gaps, no duplicates;
 * - booking a credit note also applies it to the invoice it credits (a
 *   settlement on each, see decideApplyCreditNote), appended together with
 *   both streams' loaded versions.
 * - an invoice made out to a customer record takes the customer's available
 *   credit in its currency, up to what is due (decideApplyCustomerCredit): a
 *   settlement on the invoice and an entry on the customer's stream, appended
 *   with the customer stream's loaded version, so credit is never applied
 *   twice nor beyond the balance (a concurrent writer of the customer: retried).
 * A draft invoice is booked at the current rates of its tax codes, and one
 * made out to a customer record with that record as it is (customerAtBooking).
 */
@CommandHandler(BookInvoiceCommand)
export class BookInvoiceHandler implements ICommandHandler<BookInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly taxRegister: TaxRegisterReader,
  ) {}

  async execute({ environmentId, invoiceId, date, context, expectedVersion, number, manual }: BookInvoiceCommand): Promise<Written<InvoiceState>> {
    const { meta } = context;
    const stream = invoiceStream(environmentId, invoiceId);
    // Another writer of the customer's stream (a balance entry, another booking taking its credit) is retried on a fresh load;
    // a stale If-Match on the invoice never is (CommandPath).
    return this.commands.run(context, { retries: 3 }, async (session) => {
      const { state } = await session.load(stream, invoiceEvolver, expectedVersion);
      // Only a draft takes a number and reads its codes' rates; for anything else the decider refuses first.
      const handle =
        state.status === 'draft'
          ? formatInvoiceHandle(state.type, number ? reserved(number, state.type) : await takeInvoiceNumbers(session, environmentId, state.type, 1))
          : '';
      const taxes = state.status === 'draft' ? await this.taxRegister.read(environmentId, taxCodesOf(state), session.tx) : new Map();
      // Loaded after the number was taken: the counter row serialises the environment's bookings, so the credit a booking just took is seen.
      const customerRef = state.status === 'draft' && state.customerId != null ? customerStream(environmentId, state.customerId) : null;
      const customer = customerRef ? (await session.load(customerRef, customerEvolver)).state : undefined;
      const booking = decideBookInvoice({ invoiceId, handle, date, taxes, customer: customer && customerAtBooking(customer), manual }, state, meta);
      session.append(stream, booking);
      const booked = foldEvents(invoiceEvolver, booking, state);
      const credit = customerRef && customer ? decideApplyCustomerCredit({ entryId: meta.newId(), booking }, state, customer, meta) : null;
      if (customerRef && credit) session.append(customerRef, credit.customerEvents);
      const onCreditNote = await this.applyCreditNote(session, environmentId, booked, meta);
      const events = [...booking, ...(credit?.invoiceEvents ?? []), ...onCreditNote];
      return {
        id: invoiceId,
        version: session.append(stream, [...(credit?.invoiceEvents ?? []), ...onCreditNote]),
        state: foldEvents(invoiceEvolver, events, state),
      };
    });
  }

  /**
   * A booked credit note's settlement, and the append of the invoice it
   * credits (staged on the session). The invoice is loaded after the number
   * was taken: the counter row serialises bookings of one type, so a credit
   * note booked just before this one is already visible; the expected
   * version catches any other writer.
   */
  private async applyCreditNote(session: CommandSession, environmentId: string, booked: InvoiceState, meta: CommandMetadata): Promise<InvoiceEvent[]> {
    const application = creditNoteApplication(booked);
    if (!application) return [];
    const creditedStream = invoiceStream(environmentId, application.invoiceId);
    const invoice = await session.load(creditedStream, invoiceEvolver);
    const { invoiceEvents, creditNoteEvents } = decideApplyCreditNote(application, invoice.state, booked, meta);
    session.append(creditedStream, invoiceEvents);
    return creditNoteEvents;
  }
}

/**
 * The customer record a draft is made out to, as read from its stream in the
 * booking's transaction: its snapshot is frozen into InvoiceBooked, so a later
 * change of the customer never changes the booked invoice. An archived
 * customer's last record is used as it is (drafts do not stop a deletion).
 */
function customerAtBooking(state: CustomerState): BookInvoice['customer'] {
  if (state.status === 'none') return undefined;
  return { snapshot: invoiceCustomerOf(state), paymentTermsDays: state.invoiceSettings.paymentTermsDays };
}

/** A number reserved for the booking, which must be of the counter's type. */
function reserved(number: ReservedInvoiceNumber, type: InvoiceType): number {
  if (number.type !== type) throw new Error(`a number of the ${number.type} counter cannot book a ${type}`);
  return number.value;
}
