import { Command } from '@nestjs/cqrs';
import type { UsageBatchResult } from './ingest-usage-events.handler';

/** POST /usage-events: the batch as it arrived, checked against the environment's `now` (its test clock, if any). */
export class IngestUsageEventsCommand extends Command<UsageBatchResult> {
  constructor(
    readonly environmentId: string,
    readonly body: unknown,
    readonly now: Date,
  ) {
    super();
  }
}
