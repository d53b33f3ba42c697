import { Query } from '@nestjs/cqrs';

/**
 * What the catalog asks of other contexts, declared here and answered there
 * (the layering runs catalog < subscriptions: the catalog cannot import the
 * subscriptions context, so it states the question and the subscriptions
 * context registers the query handler that answers it).
 */

/** Whether `code` names a billable metric of the environment (answered by the subscriptions context, which owns metrics). */
export class BillableMetricExistsQuery extends Query<boolean> {
  constructor(
    readonly environmentId: string,
    readonly code: string,
  ) {
    super();
  }
}
