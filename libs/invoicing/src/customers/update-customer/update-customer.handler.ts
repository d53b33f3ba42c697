import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { PaymentTokenVault } from '@billing/platform';
import { foldEvents } from '@billing/shared-kernel';
import {
  activeCustomer,
  Customer,
  customerEvolver,
  customerHandleEvolver,
  decideClaimCustomerHandle,
  decideReleaseCustomerHandle,
  decideUpdateCustomer,
} from '../../domain';
import { customerHandleStream, customerStream } from '../../streams';
import { redeemCustomerDiscounts } from '../customer-discounts/redeem-customer-discounts';
import { withSealedPaymentMethod } from '../sealed-payment-method';
import { namedTemplateGroupExists } from '../named-template-group';
import { UpdateCustomerCommand } from './update-customer.command';

/**
 * A partial update. A new handle is claimed and the old one released in the
 * same transaction as the update, so the old handle is free again exactly
 * when the new one is taken; discounts it names are redeemed in it too.
 */
@CommandHandler(UpdateCustomerCommand)
export class UpdateCustomerHandler implements ICommandHandler<UpdateCustomerCommand, Written<Customer>> {
  constructor(
    private readonly commands: CommandPath,
    private readonly tokens: PaymentTokenVault,
    private readonly queries: QueryBus,
  ) {}

  async execute({ environmentId, customerId, input, context, expectedVersion, discounts }: UpdateCustomerCommand): Promise<Written<Customer>> {
    const stream = customerStream(environmentId, customerId);
    const templateGroupExists = await namedTemplateGroupExists(this.queries, environmentId, input);
    return this.commands.run(context, { retries: 2 }, async (session) => {
      const { state } = await session.load(stream, customerEvolver, expectedVersion);
      const events = withSealedPaymentMethod(decideUpdateCustomer({ customerId, input, templateGroupExists }, state, context.meta), (token) =>
        this.tokens.seal(environmentId, token),
      );
      const before = activeCustomer(state, customerId);
      const after = foldEvents(customerEvolver, events, state) as Customer;
      if (after.handle !== before.handle) {
        const claim = customerHandleStream(environmentId, after.handle);
        session.append(claim, decideClaimCustomerHandle(after.handle, customerId, (await session.load(claim, customerHandleEvolver)).state));
        const release = customerHandleStream(environmentId, before.handle);
        session.append(release, decideReleaseCustomerHandle(before.handle, customerId, (await session.load(release, customerHandleEvolver)).state));
      }
      // Redeemed in the currency the update leaves the customer with; appended with the update at the versions loaded.
      const applied = await redeemCustomerDiscounts(session, environmentId, after, discounts, false, context.meta);
      return { id: customerId, version: session.append(stream, [...events, ...applied]), state: foldEvents(customerEvolver, applied, after) as Customer };
    });
  }
}
