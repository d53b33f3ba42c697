import { QueryBus } from '@nestjs/cqrs';
import { isUuid } from '@billing/shared-kernel';
import { CustomerFieldsInput } from '../domain';
import { TemplateGroupExistsQuery } from '../ports';

/**
 * Whether the template group a customer's input names is one of the environment's, asked of templates through
 * invoicing's port (the decider turns "no" into a 404 at its pointer); absent when the input names none, or
 * something the decider refuses as malformed anyway.
 */
export async function namedTemplateGroupExists(queries: QueryBus, environmentId: string, input: CustomerFieldsInput): Promise<boolean | undefined> {
  const requested = input.invoiceSettings?.templateGroupId;
  if (typeof requested !== 'string' || !isUuid(requested)) return undefined;
  return queries.execute(new TemplateGroupExistsQuery(environmentId, requested.toLowerCase()));
}
