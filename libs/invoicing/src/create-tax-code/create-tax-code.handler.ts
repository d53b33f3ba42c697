import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { decideCreateTaxCode, taxCodeEvolver, TaxCodeState } from '../domain';
import { taxCodeStream } from '../streams';
import { CreateTaxCodeCommand } from './create-tax-code.command';

/**
 * The stream id derives from the code, so two first creates of one code race
 * for the same stream: the loser decides again on the winner's state and
 * answers 409 tax-code-exists.
 */
@CommandHandler(CreateTaxCodeCommand)
export class CreateTaxCodeHandler implements ICommandHandler<CreateTaxCodeCommand, Written<TaxCodeState>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, input, context }: CreateTaxCodeCommand): Promise<Written<TaxCodeState>> {
    const { version, state } = await this.commands.handle(
      taxCodeStream(environmentId, input.code),
      taxCodeEvolver,
      (state) => decideCreateTaxCode(input, state, context.meta),
      context,
      { conflicts: { retries: 1 } },
    );
    return { id: input.code, version, state };
  }
}
