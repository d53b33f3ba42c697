import { CommandMetadata, ConflictError, DomainEvent, Evolver, NotFoundError, ValidationError, deciderOf } from '@billing/shared-kernel';
import { jsonEqual } from './json';
import { CreatePriceInput, UpdatePriceInput, validateUpdatePrice } from './price-validation';

/**
 * The Price aggregate as a decider: pure `evolve` plus one `decide*` per command.
 * A create arrives validated (`validateCreatePrice` at the edge: a new price has
 * no state to check first). An update arrives as the untrusted body and is
 * validated here, after the state checks, because its rules depend on the price
 * (its model and purchase) and a missing or archived price answers 404 / 409
 * whatever the body says.
 * Timestamps in events are ISO strings so event data is plain JSON.
 */

// ---- events (stable type strings; schemaVersion 1)

export const PRICE_STREAM_TYPE = 'price';

/** The whole price as created, with its id and time. */
export interface PriceCreatedData extends CreatePriceInput {
  readonly priceId: string;
  readonly createdAt: string;
}
/**
 * A diff, not a snapshot: only the changed fields are present (description may
 * change to null), with the id and the time. Stored events are immutable, so
 * the shape stays; the stream definition documents it.
 */
export interface PriceUpdatedData extends UpdatePriceInput {
  readonly priceId: string;
  readonly updatedAt: string;
}
export interface PriceArchivedData {
  readonly priceId: string;
  readonly archivedAt: string;
}

export type PriceCreated = DomainEvent<'PriceCreated', PriceCreatedData>;
export type PriceUpdated = DomainEvent<'PriceUpdated', PriceUpdatedData>;
export type PriceArchived = DomainEvent<'PriceArchived', PriceArchivedData>;
export type PriceEvent = PriceCreated | PriceUpdated | PriceArchived;

// ---- state

export interface ExistingPrice extends CreatePriceInput {
  readonly status: 'active' | 'archived';
  readonly id: string;
  readonly createdAt: string;
  /** Time of the latest event (create, update or archive). */
  readonly updatedAt: string;
  readonly archivedAt: string | null;
}
export type PriceState = { readonly status: 'none' } | ExistingPrice;

export function initialPriceState(): PriceState {
  return { status: 'none' };
}

/** Events that do not fit the state (never produced by the deciders) are ignored, as are unknown types. */
export function evolvePrice(state: PriceState, event: PriceEvent): PriceState {
  switch (event.type) {
    case 'PriceCreated': {
      if (state.status !== 'none') return state;
      const { priceId, createdAt, ...input } = event.data;
      return { status: 'active', id: priceId, ...input, createdAt, updatedAt: createdAt, archivedAt: null };
    }
    case 'PriceUpdated': {
      if (state.status === 'none') return state;
      const { priceId: _id, updatedAt, ...changes } = event.data;
      return { ...state, ...changes, updatedAt };
    }
    case 'PriceArchived':
      if (state.status === 'none') return state;
      return { ...state, status: 'archived', archivedAt: event.data.archivedAt, updatedAt: event.data.archivedAt };
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const priceEvolver: Evolver<PriceState, PriceEvent> = { initialState: initialPriceState, evolve: evolvePrice };

/** The price, or 404: what every command on an existing price starts with. */
export function existingPrice(state: PriceState, priceId: string): ExistingPrice {
  if (state.status === 'none') throw new NotFoundError('price', priceId);
  return state;
}

// ---- commands and deciders

/** `priceId` is the stream id, chosen by the caller (e.g. `meta.newId()`) before loading the stream. */
export interface CreatePrice {
  readonly priceId: string;
  readonly input: CreatePriceInput;
  /**
   * Whether `input.productId` names a product of the price's environment (looked
   * up by the caller; ignored when productId is null). Another environment's
   * product does not exist here.
   */
  readonly productExists: boolean;
  /** Whether `input.metricCode` names a billable metric of the environment (asked by the caller; ignored without a metricCode). */
  readonly metricExists: boolean;
}
export interface UpdatePrice {
  readonly priceId: string;
  /** The untrusted request body: validated against the price by decideUpdatePrice. */
  readonly body: unknown;
}
export interface ArchivePrice {
  readonly priceId: string;
}

export function decideCreatePrice(command: CreatePrice, state: PriceState, meta: CommandMetadata): PriceCreated[] {
  if (state.status !== 'none') throw new ConflictError('price-exists', `price ${command.priceId} already exists`);
  const { productId } = command.input;
  if (productId !== null && !command.productExists) throw ValidationError.at('/productId', `no product ${productId} exists in this environment`);
  const { metricCode } = command.input;
  if (metricCode !== undefined && !command.metricExists)
    throw ValidationError.at('/metricCode', `no billable metric '${metricCode}' exists in this environment`);
  return [{ type: 'PriceCreated', schemaVersion: 1, data: { priceId: command.priceId, ...command.input, createdAt: meta.now.toISOString() } }];
}

/**
 * 404, then 409 for an archived price, then the body's 422 (every field error
 * at once). An update that changes nothing (all values equal the current
 * ones, or `{}`) emits no event.
 */
export function decideUpdatePrice(command: UpdatePrice, state: PriceState, meta: CommandMetadata): PriceUpdated[] {
  const price = activePrice(state, command.priceId);
  const input = validateUpdatePrice(command.body, price);
  const changes = Object.fromEntries(
    Object.entries(input).filter(([key, value]) => !jsonEqual(value, price[key as keyof UpdatePriceInput])),
  ) as UpdatePriceInput;
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'PriceUpdated', schemaVersion: 1, data: { priceId: command.priceId, ...changes, updatedAt: meta.now.toISOString() } }];
}

export function decideArchivePrice(command: ArchivePrice, state: PriceState, meta: CommandMetadata): PriceArchived[] {
  activePrice(state, command.priceId);
  return [{ type: 'PriceArchived', schemaVersion: 1, data: { priceId: command.priceId, archivedAt: meta.now.toISOString() } }];
}

function activePrice(state: PriceState, priceId: string): ExistingPrice {
  const price = existingPrice(state, priceId);
  if (price.status === 'archived') throw new ConflictError('price-archived', `price ${priceId} is archived`);
  return price;
}

/** The Price aggregate as one value: what it folds (priceEvolver) and what each of its commands decides. */
export const priceDecider = deciderOf(priceEvolver, { CreatePrice: decideCreatePrice, UpdatePrice: decideUpdatePrice, ArchivePrice: decideArchivePrice });
