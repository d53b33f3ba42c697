import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { PaymentTokenVault } from '@billing/platform';
import { foldEvents } from '@billing/shared-kernel';
import { Customer, customerEvolver, customerHandleEvolver, decideClaimCustomerHandle, decideCreateCustomer, defaultCustomerHandle } from '../../domain';
import { customerHandleStream, customerStream } from '../../streams';
import { redeemCustomerDiscounts } from '../customer-discounts/redeem-customer-discounts';
import { withSealedPaymentMethod } from '../sealed-payment-method';
import { namedTemplateGroupExists } from '../named-template-group';
import { CreateCustomerCommand } from './create-customer.command';

/**
 * Writes the customer, claims its handle and redeems its discounts in one
 * transaction: a handle is never held by two customers of an environment, nor
 * a coupon redeemed beyond its limit, also under concurrency (the claim and
 * coupon streams are appended at the versions they were loaded at).
 */
@CommandHandler(CreateCustomerCommand)
export class CreateCustomerHandler implements ICommandHandler<CreateCustomerCommand, Written<Customer>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly tokens: PaymentTokenVault,
    private readonly queries: QueryBus,
  ) {}

  async execute({ environmentId, input, context, discounts }: CreateCustomerCommand): Promise<Written<Customer>> {
    const customerId = context.meta.newId();
    const handle = input.handle ?? defaultCustomerHandle(customerId);
    // Template groups are never deleted: one found now still exists when the customer is written.
    const templateGroupExists = await namedTemplateGroupExists(this.queries, environmentId, input);
    const events = withSealedPaymentMethod(
      decideCreateCustomer({ customerId, handle, input, templateGroupExists }, customerEvolver.initialState(), context.meta),
      (token) => this.tokens.seal(environmentId, token),
    );
    // A claim committed by a concurrent request between this one's load and append is a conflict: decided again, it is seen.
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const claimStream = customerHandleStream(environmentId, handle);
      session.append(claimStream, decideClaimCustomerHandle(handle, customerId, (await session.load(claimStream, customerHandleEvolver)).state));
      // Each coupon's redemption is appended at the version loaded, with the customer: its limit holds under concurrency.
      const applied = await redeemCustomerDiscounts(session, environmentId, foldEvents(customerEvolver, events) as Customer, discounts, true, context.meta);
      const version = session.append(customerStream(environmentId, customerId), [...events, ...applied]);
      return { id: customerId, version, state: foldEvents(customerEvolver, [...events, ...applied]) as Customer };
    });
  }
}
