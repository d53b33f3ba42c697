import { CreateEventStore1763700000000 } from './1763700000000-create-event-store';
import { CreateEventChain1764000000000 } from './1764000000000-create-event-chain';
import { AddEventsRecordedAt1764100000000 } from './1764100000000-add-events-recorded-at';
import { CreateEventsHorizon1764400000000 } from './1764400000000-create-events-horizon';
import { CreateEventsGroupMoved1764600810000 } from './1764600810000-create-events-group-moved';
import { CreateRequestAnsweredBefore1764600900000 } from './1764600900000-create-request-answered-before';
import { AddStreamsTransactionId1764600910000 } from './1764600910000-add-streams-transaction-id';

export const eventStoreMigrations = [
  CreateEventStore1763700000000,
  CreateEventChain1764000000000,
  AddEventsRecordedAt1764100000000,
  CreateEventsHorizon1764400000000,
  CreateEventsGroupMoved1764600810000,
  CreateRequestAnsweredBefore1764600900000,
  AddStreamsTransactionId1764600910000,
];
