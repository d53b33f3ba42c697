import { CommandMetadata, ConflictError, DomainEvent, Evolver, NotFoundError, ValidationError, scaledToNumber, deciderOf } from '@billing/shared-kernel';
import { TAX_RATE_SCALE, parseTaxRate } from './invoice-maths';

/**
 * The tax-code register of an environment: one stream per code (the
 * infrastructure derives the stream id from the code). Codes are
 * case-sensitive and stored as given, and never deleted.
 *
 * Rates are scaled integers, like every rate in the service: the fraction ×
 * 10^4, i.e. in basis points (`rateBasisPoints: 2550` is 0.255, 25.5 %). The
 * API keeps showing and accepting the fraction (`rate: 0.255`).
 */

export const TAX_CODE_MAX_LENGTH = 50;

/** The schema version tax-code events are written in (see upcastTaxCodeEvent for the history). */
export const TAX_CODE_EVENT_SCHEMA_VERSION = 2;

/** What an invoice line records of its tax code at the time of the command. */
export interface ResolvedTax {
  readonly taxCode: string | null;
  readonly taxable: boolean;
  /** fraction, 4 decimals (0.255 = 25.5%) */
  readonly taxRate: number;
}

/**
 * The current entries of an environment's register, by code, as far as a
 * command needs them (the codes its lines name). Codes are never deleted, so
 * a code a line names is always in the register it was read from.
 */
export type TaxRegister = ReadonlyMap<string, ResolvedTax>;

/** A line without a tax code is not taxed. */
export const NO_TAX: ResolvedTax = Object.freeze({ taxCode: null, taxable: false, taxRate: 0 });

export interface TaxCode {
  readonly status: 'active';
  readonly code: string;
  /** The rate as a fraction × 10^4 (basis points): 2550 is 0.255. */
  readonly rateBasisPoints: number;
  readonly taxable: boolean;
  readonly description: string | null;
  readonly createdAt: string;
  readonly updatedAt: string | null;
}
export type TaxCodeState = { readonly status: 'none' } | TaxCode;

export interface TaxCodeCreatedData {
  readonly code: string;
  readonly rateBasisPoints: number;
  readonly taxable: boolean;
  readonly description: string | null;
  readonly createdAt: string;
}
/** A full snapshot of the code after the update. */
export interface TaxCodeUpdatedData {
  readonly code: string;
  readonly rateBasisPoints: number;
  readonly taxable: boolean;
  readonly description: string | null;
  readonly updatedAt: string;
}
export type TaxCodeCreated = DomainEvent<'TaxCodeCreated', TaxCodeCreatedData>;
export type TaxCodeUpdated = DomainEvent<'TaxCodeUpdated', TaxCodeUpdatedData>;
export type TaxCodeEvent = TaxCodeCreated | TaxCodeUpdated;

/** An event as stored, in whatever schema version it was written (the event store's StoredEvent). */
export interface StoredTaxCodeEvent {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
}

/**
 * Brings a stored tax-code event to the current schema, when it is read.
 * - v1: `rate`, the fraction as a JSON number (0.255);
 * - v2: `rateBasisPoints`, the fraction × 10^4 as an integer (2550).
 * v1 rates were validated to at most 4 decimals, so the double × 10^4 lies
 * within far less than 0.5 of its integer and rounding it is exact.
 */
export function upcastTaxCodeEvent(event: StoredTaxCodeEvent): StoredTaxCodeEvent {
  if (event.schemaVersion !== 1 || (event.type !== 'TaxCodeCreated' && event.type !== 'TaxCodeUpdated')) return event;
  const { rate, ...rest } = event.data as { readonly rate: number };
  return { type: event.type, schemaVersion: 2, data: { ...rest, rateBasisPoints: Math.round(rate * 10 ** TAX_RATE_SCALE) } };
}

export interface CreateTaxCode {
  readonly code: string;
  /** A fraction, at most 4 decimals (0.255). */
  readonly rate: number;
  readonly taxable: boolean;
  readonly description?: string | null;
}
/** Omitted (undefined) fields keep their value; `description: null` clears it. */
export interface UpdateTaxCode {
  readonly code: string;
  readonly rate?: number;
  readonly taxable?: boolean;
  readonly description?: string | null;
}

export function initialTaxCodeState(): TaxCodeState {
  return { status: 'none' };
}

export function evolveTaxCode(state: TaxCodeState, event: TaxCodeEvent): TaxCodeState {
  switch (event.type) {
    case 'TaxCodeCreated': {
      const { code, rateBasisPoints, taxable, description, createdAt } = event.data;
      return { status: 'active', code, rateBasisPoints, taxable, description, createdAt, updatedAt: null };
    }
    case 'TaxCodeUpdated': {
      if (state.status === 'none') return state;
      const { code, rateBasisPoints, taxable, description, updatedAt } = event.data;
      return { ...state, code, rateBasisPoints, taxable, description, updatedAt };
    }
    default: {
      // Compile time: a forgotten case fails here. Run time: an event type from a newer release leaves the state as it was.
      const _exhaustive: never = event;
      return state;
    }
  }
}

export const taxCodeEvolver: Evolver<TaxCodeState, TaxCodeEvent> = {
  initialState: initialTaxCodeState,
  evolve: evolveTaxCode,
};

export function decideCreateTaxCode(command: CreateTaxCode, state: TaxCodeState, meta: CommandMetadata): TaxCodeEvent[] {
  const code = validCode(command.code);
  if (state.status !== 'none') throw new ConflictError('tax-code-exists', `tax code ${code} already exists`);
  return [
    {
      type: 'TaxCodeCreated',
      schemaVersion: TAX_CODE_EVENT_SCHEMA_VERSION,
      data: {
        code,
        rateBasisPoints: validRate(command.rate),
        taxable: validTaxable(command.taxable),
        description: command.description ?? null,
        createdAt: meta.now.toISOString(),
      },
    },
  ];
}

/** Idempotent: an update that changes nothing records nothing. */
export function decideUpdateTaxCode(command: UpdateTaxCode, state: TaxCodeState, meta: CommandMetadata): TaxCodeEvent[] {
  if (state.status === 'none') throw new NotFoundError('Tax code', command.code);
  const next = {
    code: state.code,
    rateBasisPoints: command.rate === undefined ? state.rateBasisPoints : validRate(command.rate),
    taxable: command.taxable === undefined ? state.taxable : validTaxable(command.taxable),
    description: command.description === undefined ? state.description : command.description,
  };
  if (next.rateBasisPoints === state.rateBasisPoints && next.taxable === state.taxable && next.description === state.description) return [];
  return [{ type: 'TaxCodeUpdated', schemaVersion: TAX_CODE_EVENT_SCHEMA_VERSION, data: { ...next, updatedAt: meta.now.toISOString() } }];
}

/** The rate as the API shows it and invoice lines record it: the fraction (2550 → 0.255). */
export function taxRateOf(taxCode: Pick<TaxCode, 'rateBasisPoints'>): number {
  return scaledToNumber(BigInt(taxCode.rateBasisPoints), TAX_RATE_SCALE);
}

/** What an invoice line records when it names this code. */
export function resolveTax(taxCode: TaxCode): ResolvedTax {
  return { taxCode: taxCode.code, taxable: taxCode.taxable, taxRate: taxRateOf(taxCode) };
}

function validCode(code: unknown): string {
  // Lengths count Unicode code points, as elsewhere in the service.
  const length = typeof code === 'string' ? [...code].length : 0;
  if (typeof code !== 'string' || length < 1 || length > TAX_CODE_MAX_LENGTH) {
    throw ValidationError.at('/code', `must be a string of 1 to ${TAX_CODE_MAX_LENGTH} characters`);
  }
  return code;
}

/** Parsed exactly (more than 4 decimals is a 422, never rounded) into basis points. */
function validRate(rate: unknown): number {
  if (typeof rate !== 'number') throw ValidationError.at('/rate', 'must be a number');
  return Number(parseTaxRate(rate, '/rate'));
}

function validTaxable(taxable: unknown): boolean {
  if (typeof taxable !== 'boolean') throw ValidationError.at('/taxable', 'must be a boolean');
  return taxable;
}

/** The TaxCode aggregate as one value: what it folds (taxCodeEvolver) and what each of its commands decides. */
export const taxCodeDecider = deciderOf(taxCodeEvolver, { CreateTaxCode: decideCreateTaxCode, UpdateTaxCode: decideUpdateTaxCode });
