import { CreateEventStore1763700000000 } from './1763700000000-create-event-store';
import { CreateEventChain1764000000000 } from './1764000000000-create-event-chain';

export const eventStoreMigrations = [CreateEventStore1763700000000, CreateEventChain1764000000000];
