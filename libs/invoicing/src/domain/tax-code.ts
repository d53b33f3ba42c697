import {
  CommandMetadata,
  ConflictError,
  DomainEvent,
  Evolver,
  NotFoundError,
  ValidationError,
  scaledToNumber,
} from '@billing/shared-kernel';
import { TAX_RATE_SCALE, parseTaxRate } from './invoice-maths';

/**
 * The tax-code register of an environment: one stream per code (the
 * infrastructure derives the stream id from the code). Codes are
 * case-sensitive and stored as given.
 */

export const TAX_CODE_MAX_LENGTH = 50;

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
  readonly exists: true;
  readonly code: string;
  readonly rate: number;
  readonly taxable: boolean;
  readonly description: string | null;
  readonly createdAt: string;
  readonly updatedAt: string | null;
}
export type TaxCodeState = { readonly exists: false } | TaxCode;

export interface TaxCodeCreatedData {
  readonly code: string;
  readonly rate: number;
  readonly taxable: boolean;
  readonly description: string | null;
  readonly createdAt: string;
}
/** A full snapshot of the code after the update. */
export interface TaxCodeUpdatedData {
  readonly code: string;
  readonly rate: number;
  readonly taxable: boolean;
  readonly description: string | null;
  readonly updatedAt: string;
}
export type TaxCodeCreated = DomainEvent<'TaxCodeCreated', TaxCodeCreatedData>;
export type TaxCodeUpdated = DomainEvent<'TaxCodeUpdated', TaxCodeUpdatedData>;
export type TaxCodeEvent = TaxCodeCreated | TaxCodeUpdated;

export interface CreateTaxCode {
  readonly code: string;
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
  return { exists: false };
}

export function evolveTaxCode(state: TaxCodeState, event: TaxCodeEvent): TaxCodeState {
  switch (event.type) {
    case 'TaxCodeCreated':
      return { exists: true, ...event.data, updatedAt: null };
    case 'TaxCodeUpdated': {
      if (!state.exists) return state;
      const { updatedAt, ...rest } = event.data;
      return { ...state, ...rest, updatedAt };
    }
    default:
      return state;
  }
}

export const taxCodeEvolver: Evolver<TaxCodeState, TaxCodeEvent> = {
  initialState: initialTaxCodeState,
  evolve: evolveTaxCode,
};

export function decideCreateTaxCode(command: CreateTaxCode, state: TaxCodeState, meta: CommandMetadata): TaxCodeEvent[] {
  const code = validCode(command.code);
  if (state.exists) throw new ConflictError('tax-code-exists', `tax code ${code} already exists`);
  return [
    {
      type: 'TaxCodeCreated',
      schemaVersion: 1,
      data: {
        code,
        rate: validRate(command.rate),
        taxable: validTaxable(command.taxable),
        description: command.description ?? null,
        createdAt: meta.now.toISOString(),
      },
    },
  ];
}

/** Idempotent: an update that changes nothing records nothing. */
export function decideUpdateTaxCode(command: UpdateTaxCode, state: TaxCodeState, meta: CommandMetadata): TaxCodeEvent[] {
  if (!state.exists) throw new NotFoundError('Tax code', command.code);
  const next = {
    code: state.code,
    rate: command.rate === undefined ? state.rate : validRate(command.rate),
    taxable: command.taxable === undefined ? state.taxable : validTaxable(command.taxable),
    description: command.description === undefined ? state.description : command.description,
  };
  if (next.rate === state.rate && next.taxable === state.taxable && next.description === state.description) return [];
  return [{ type: 'TaxCodeUpdated', schemaVersion: 1, data: { ...next, updatedAt: meta.now.toISOString() } }];
}

/** What an invoice line records when it names this code. */
export function resolveTax(taxCode: TaxCode): ResolvedTax {
  return { taxCode: taxCode.code, taxable: taxCode.taxable, taxRate: taxCode.rate };
}

function validCode(code: unknown): string {
  // Lengths count Unicode code points, as elsewhere in the service.
  const length = typeof code === 'string' ? [...code].length : 0;
  if (typeof code !== 'string' || length < 1 || length > TAX_CODE_MAX_LENGTH) {
    throw ValidationError.at('/code', `must be a string of 1 to ${TAX_CODE_MAX_LENGTH} characters`);
  }
  return code;
}

/** Normalised through the scaled parser so the stored number is exactly the 4-decimal fraction. */
function validRate(rate: unknown): number {
  if (typeof rate !== 'number') throw ValidationError.at('/rate', 'must be a number');
  return scaledToNumber(parseTaxRate(rate, '/rate'), TAX_RATE_SCALE);
}

function validTaxable(taxable: unknown): boolean {
  if (typeof taxable !== 'boolean') throw ValidationError.at('/taxable', 'must be a boolean');
  return taxable;
}
