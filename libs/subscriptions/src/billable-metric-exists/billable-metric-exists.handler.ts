import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BillableMetricExistsQuery } from '@billing/catalog';
import { UsageStore } from '../usage/usage-store';

/** Answers the catalog's port: an event_based price may only name a billable metric of its environment. */
@QueryHandler(BillableMetricExistsQuery)
export class BillableMetricExistsHandler implements IQueryHandler<BillableMetricExistsQuery, boolean> {
  constructor(private readonly store: UsageStore) {}

  async execute({ environmentId, code }: BillableMetricExistsQuery): Promise<boolean> {
    return (await this.store.metric(environmentId, code)) !== null;
  }
}
