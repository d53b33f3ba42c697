import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideUpdateTaxCode, taxCodeEvolver, TaxCodeState } from '../domain';
import { taxCodeStream } from '../streams';
import { UpdateTaxCodeCommand } from './update-tax-code.command';

/** An update that changes nothing records nothing and answers the current version. */
@CommandHandler(UpdateTaxCodeCommand)
export class UpdateTaxCodeHandler implements ICommandHandler<UpdateTaxCodeCommand, Written<TaxCodeState>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context, expectedVersion }: UpdateTaxCodeCommand): Promise<Written<TaxCodeState>> {
    const { version, state } = await this.commands.handle(
      taxCodeStream(environmentId, input.code),
      taxCodeEvolver,
      (state) => decideUpdateTaxCode(input, state, context.meta),
      context,
      { expectedVersion },
    );
    return { id: input.code, version, state };
  }
}
