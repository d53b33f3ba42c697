import { Command } from '@nestjs/cqrs';
import { CommandContext, Written } from '@billing/event-store';
import { BillableMetric } from '../domain';

/** POST /billable-metrics: the body as it arrived (validated by the decider, every problem at its pointer). */
export class CreateBillableMetricCommand extends Command<Written<BillableMetric>> {
  constructor(
    readonly environmentId: string,
    readonly body: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
