import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandPath, Written } from '@billing/event-store';
import { BillableMetric, billableMetricEvolver, decideCreateBillableMetric, validateMetricBody } from '../domain';
import { billableMetricId, billableMetricStream } from '../streams';
import { CreateBillableMetricCommand } from './create-billable-metric.command';

/** The metric's stream is named by its code (uuid v5), so a code is created once; a taken one is a 409. */
@CommandHandler(CreateBillableMetricCommand)
export class CreateBillableMetricHandler implements ICommandHandler<CreateBillableMetricCommand, Written<BillableMetric>> {
  constructor(private readonly commands: CommandPath) {}

  async execute({ environmentId, body, context }: CreateBillableMetricCommand): Promise<Written<BillableMetric>> {
    const { code } = validateMetricBody(body);
    const metricId = billableMetricId(environmentId, code);
    const { state, version } = await this.commands.handle(
      billableMetricStream(environmentId, code),
      billableMetricEvolver,
      (current) => decideCreateBillableMetric({ metricId, body }, current, context.meta),
      context,
    );
    return { id: code, version, state: state as BillableMetric };
  }
}
