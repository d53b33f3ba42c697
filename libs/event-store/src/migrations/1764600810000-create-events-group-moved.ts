import { statementFailureMigration } from './statement-failure';

/**
 * `events_group_moved()` fails the statement that calls it (SQLSTATE BL409): a group of appends written by one
 * statement outside a transaction (EventStore.appendGroup) calls it when one of its streams was moved by another
 * writer, so the whole statement, the other streams' claims included, rolls back and nothing of the group is
 * written.
 */
export const CreateEventsGroupMoved1764600810000 = statementFailureMigration(
  'CreateEventsGroupMoved1764600810000',
  'events_group_moved',
  'BL409',
  'a stream of the group was moved by another writer',
);
