import { CommandMetadata, ConflictError, DomainEvent, Evolver, NotFoundError } from '@billing/shared-kernel';
import { jsonEqual } from './json';
import { CreatePriceInput, UpdatePriceInput, validateCreatePrice, validateUpdatePrice } from './price-validation';
import { BillingTiming, PriceModel, Pricing, Purchase, TermUnit } from './types';

/**
 * The Price aggregate as a decider: pure `evolve` plus one `decide*` per command.
 * The deciders validate the raw input themselves (update validation needs the
 * current priceModel/purchase), after the state checks: 404 and 409 win over 422.
 * Timestamps in events are ISO strings so event data is plain JSON.
 */

// ---- events (stable type strings; schemaVersion 1)

export const PRICE_STREAM_TYPE = 'price';

export interface PriceCreatedData extends CreatePriceInput {
  readonly priceId: string;
  readonly createdAt: string;
}
/** Only the changed fields are present (description may change to null). */
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
export type PriceState = { readonly status: 'empty' } | ExistingPrice;

export function initialPriceState(): PriceState {
  return { status: 'empty' };
}

/** Events that do not fit the state (never produced by the deciders) are ignored, as are unknown types. */
export function evolvePrice(state: PriceState, event: PriceEvent): PriceState {
  switch (event.type) {
    case 'PriceCreated': {
      if (state.status !== 'empty') return state;
      const { priceId, createdAt, ...input } = event.data;
      return { status: 'active', id: priceId, ...input, createdAt, updatedAt: createdAt, archivedAt: null };
    }
    case 'PriceUpdated': {
      if (state.status === 'empty') return state;
      const { priceId: _id, updatedAt, ...changes } = event.data;
      return { ...state, ...changes, updatedAt };
    }
    case 'PriceArchived':
      if (state.status === 'empty') return state;
      return { ...state, status: 'archived', archivedAt: event.data.archivedAt, updatedAt: event.data.archivedAt };
    default:
      return state;
  }
}

export const priceEvolver: Evolver<PriceState, PriceEvent> = { initialState: initialPriceState, evolve: evolvePrice };

// ---- commands and deciders

/** `priceId` is the stream id, chosen by the caller (e.g. `meta.newId()`) before loading the stream. */
export interface CreatePrice {
  readonly priceId: string;
  /** The untrusted request body (or an already validated CreatePriceInput). */
  readonly input: unknown;
}
export interface UpdatePrice {
  readonly priceId: string;
  readonly input: unknown;
}
export interface ArchivePrice {
  readonly priceId: string;
}

export function decideCreatePrice(command: CreatePrice, state: PriceState, meta: CommandMetadata): PriceCreated[] {
  if (state.status !== 'empty') throw new ConflictError('price-exists', `price ${command.priceId} already exists`);
  const input = validateCreatePrice(command.input);
  return [{ type: 'PriceCreated', schemaVersion: 1, data: { priceId: command.priceId, ...input, createdAt: meta.now.toISOString() } }];
}

/** Decision: an update that changes nothing (all values equal the current ones, or `{}`) emits no event. */
export function decideUpdatePrice(command: UpdatePrice, state: PriceState, meta: CommandMetadata): PriceUpdated[] {
  const price = requireActive(command.priceId, state);
  const input = validateUpdatePrice(command.input, price);
  const changes = Object.fromEntries(
    Object.entries(input).filter(([key, value]) => !jsonEqual(value, price[key as keyof UpdatePriceInput])),
  ) as UpdatePriceInput;
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'PriceUpdated', schemaVersion: 1, data: { priceId: command.priceId, ...changes, updatedAt: meta.now.toISOString() } }];
}

export function decideArchivePrice(command: ArchivePrice, state: PriceState, meta: CommandMetadata): PriceArchived[] {
  requireActive(command.priceId, state);
  return [{ type: 'PriceArchived', schemaVersion: 1, data: { priceId: command.priceId, archivedAt: meta.now.toISOString() } }];
}

function requireActive(priceId: string, state: PriceState): ExistingPrice {
  if (state.status === 'empty') throw new NotFoundError('Price', priceId);
  if (state.status === 'archived') throw new ConflictError('price-archived', `price ${priceId} is archived`);
  return state;
}

// ---- view

/**
 * The Price as the API returns it. The interface does not let `description`,
 * `termCount` or `termUnit` be null, so what does not apply is omitted: the
 * description when the price has none, the term on a one_time price.
 * `productId` and `archivedAt` are the service's own, nullable, members.
 */
export interface PriceView {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly priceModel: PriceModel;
  readonly purchase: Purchase;
  readonly termCount?: number;
  readonly termUnit?: TermUnit;
  readonly billingTiming: BillingTiming;
  readonly pricing: Pricing;
  readonly productId: string | null;
  readonly archived: boolean;
  readonly archivedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The Price view of a price; null when the price does not exist. */
export function toPriceView(state: PriceState): PriceView | null {
  if (state.status === 'empty') return null;
  const { status, id, name, description, priceModel, purchase, termCount, termUnit, billingTiming, pricing, productId } = state;
  return {
    id,
    name,
    ...(description === null ? {} : { description }),
    priceModel,
    purchase,
    ...(termCount === null ? {} : { termCount }),
    ...(termUnit === null ? {} : { termUnit }),
    billingTiming,
    pricing,
    productId,
    archived: status === 'archived',
    archivedAt: state.archivedAt,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}
