import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { Versioned } from '@billing/platform';
import { BillableMetric } from '../domain';

/** POST /billable-metrics: the body as it arrived (validated by the decider, every problem at its pointer). */
export class CreateBillableMetricCommand extends Command<Versioned<BillableMetric>> {
  constructor(
    readonly environmentId: string,
    readonly body: unknown,
    readonly context: CommandContext,
  ) {
    super();
  }
}
