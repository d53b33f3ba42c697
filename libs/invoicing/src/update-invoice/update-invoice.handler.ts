import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { foldEvents } from '@billing/shared-kernel';
import { customerEvolver, decideUpdateInvoice, invoiceCustomerOf, invoiceEvolver, InvoiceState, taxCodesNamedBy, taxCodesOf } from '../domain';
import { customerStream, invoiceStream } from '../streams';
import { TaxRegisterReader } from '../tax-register';
import { redeemInvoiceDiscounts, withLineProducts } from '../invoice-discounts/invoice-discounts';
import { UpdateInvoiceCommand } from './update-invoice.command';

@CommandHandler(UpdateInvoiceCommand)
export class UpdateInvoiceHandler implements ICommandHandler<UpdateInvoiceCommand, Written<InvoiceState>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly taxRegister: TaxRegisterReader,
  ) {}

  async execute({ environmentId, invoiceId, input, context, expectedVersion, discounts: requests }: UpdateInvoiceCommand): Promise<Written<InvoiceState>> {
    const stream = invoiceStream(environmentId, invoiceId);
    // New coupons are redeemed with the update (those the draft has keep their redemption), appended at the versions loaded.
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const { state } = await session.load(stream, invoiceEvolver, expectedVersion);
      // The register for the codes the new lines name or, items omitted, the kept lines name (they are written at today's rates).
      const codes = input.items === undefined ? (state.status === 'none' ? [] : taxCodesOf(state)) : taxCodesNamedBy(input.items);
      const taxes = await this.taxRegister.read(environmentId, codes, session.tx);
      // A draft made out to a customer record (which it never changes) takes the record's snapshot as it is now.
      const customerId = state.status === 'none' ? null : state.customerId;
      const record = customerId == null ? null : (await session.load(customerStream(environmentId, customerId), customerEvolver)).state;
      const customer = record && record.status !== 'none' ? invoiceCustomerOf(record) : undefined;
      const items = await withLineProducts(session, environmentId, input.items);
      const currency = (input.currency ?? (state.status === 'none' ? '' : state.currency)) || '';
      const kept = state.status === 'none' ? [] : (state.discounts ?? []);
      const discounts = requests && (await redeemInvoiceDiscounts(session, environmentId, invoiceId, currency, requests, kept, context.meta));
      const events = decideUpdateInvoice({ ...input, items, invoiceId, taxes, customer, discounts }, state, context.meta);
      const after = foldEvents(invoiceEvolver, events, state);
      return { id: invoiceId, version: session.append(stream, events, after), state: after };
    });
  }
}
