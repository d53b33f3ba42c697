import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, currentUnitOfWork } from '@billing/event-store';
import { ReservedInvoiceNumber } from '../book-invoice/book-invoice.command';
import { takeInvoiceNumbers } from '../invoice-numbers';
import { ReserveInvoiceNumbersCommand } from './reserve-invoice-numbers.command';

/**
 * Invoicing's counter, taken for another context's batch through the command path, so that the counter's SQL stays
 * invoicing's. The caller's unit of work holds the transaction: a reservation outside one would commit its numbers
 * before any booking, and a booking that then failed would leave a gap.
 */
@CommandHandler(ReserveInvoiceNumbersCommand)
export class ReserveInvoiceNumbersHandler implements ICommandHandler<ReserveInvoiceNumbersCommand, ReadonlyMap<string, ReservedInvoiceNumber>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, type, invoiceIds, context }: ReserveInvoiceNumbersCommand): Promise<ReadonlyMap<string, ReservedInvoiceNumber>> {
    if (!currentUnitOfWork()) throw new Error('invoice numbers are reserved only inside the unit of work that books them');
    return this.commands.run(context, 'reject', async (session) => {
      const first = (await takeInvoiceNumbers(session, environmentId, type, invoiceIds.length)) - invoiceIds.length + 1;
      return new Map(invoiceIds.map((invoiceId, index) => [invoiceId, { type, value: first + index }]));
    });
  }
}
