import { CreateEventStore1763700000000 } from './1763700000000-create-event-store';

export const eventStoreMigrations = [CreateEventStore1763700000000];
