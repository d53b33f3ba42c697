import { Command } from '@nestjs/cqrs';
import { CommandContext } from '@billing/event-store';
import { UsageEventInput } from './usage-batch';

export type UsageEventStatus = 'accepted' | 'duplicate' | 'rejected';

export interface UsageEventResult {
  readonly index: number;
  readonly id: string;
  readonly status: UsageEventStatus;
  /** The subscription the event counts for (resolved from customerId when given so). */
  readonly subscriptionId?: string;
  /** Rejected only: a stable code and what it means for this event. */
  readonly reason?: string;
  readonly detail?: string;
}

export interface UsageBatchResult {
  readonly accepted: number;
  readonly duplicates: number;
  readonly rejected: number;
  readonly results: readonly UsageEventResult[];
}

/** POST /usage-events: the batch, its shape checked (parseUsageBatch), against the environment's `now` (its test clock, if any). */
export class IngestUsageEventsCommand extends Command<UsageBatchResult> {
  constructor(
    readonly environmentId: string,
    readonly events: readonly UsageEventInput[],
    readonly context: CommandContext,
  ) {
    super();
  }
}
