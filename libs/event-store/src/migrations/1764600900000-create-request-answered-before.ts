import { statementFailureMigration } from './statement-failure';

/**
 * `request_answered_before()` fails the statement that calls it (SQLSTATE BL412): a group of appends written by
 * one statement outside a transaction (EventStore.appendGroup) calls it when the answer of one of its keyed
 * requests could not be stored because another request with the same Idempotency-Key stored its answer first, so
 * that request's events are not written either (nor, the statement being one, anyone else's in the group, which
 * are then written again without it).
 */
export const CreateRequestAnsweredBefore1764600900000 = statementFailureMigration(
  'CreateRequestAnsweredBefore1764600900000',
  'request_answered_before',
  'BL412',
  'another request with the same idempotency key stored its answer first',
);
