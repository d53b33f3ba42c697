import { CommandMetadata, ConflictError, NotFoundError, ValidationError, foldEvents } from '@billing/shared-kernel';
import {
  CreateTaxCode,
  TaxCodeEvent,
  TaxCodeState,
  decideCreateTaxCode,
  decideUpdateTaxCode,
  resolveTax,
  taxCodeEvolver,
} from './tax-code';

const meta: CommandMetadata = { now: new Date('2025-03-01T10:00:00.000Z'), newId: () => 'unused' };
const given = (...events: TaxCodeEvent[]): TaxCodeState => foldEvents(taxCodeEvolver, events);

const created: TaxCodeEvent = {
  type: 'TaxCodeCreated',
  schemaVersion: 1,
  data: { code: 'VAT25', rate: 0.25, taxable: true, description: 'Standard VAT', createdAt: '2025-01-01T00:00:00.000Z' },
};

describe('CreateTaxCode', () => {
  const command: CreateTaxCode = { code: 'VAT25', rate: 0.25, taxable: true, description: 'Standard VAT' };

  it('given no code, when created, then TaxCodeCreated', () => {
    expect(decideCreateTaxCode(command, given(), meta)).toEqual([
      { ...created, data: { ...created.data, createdAt: '2025-03-01T10:00:00.000Z' } },
    ]);
  });

  it('defaults the description to null', () => {
    const [event] = decideCreateTaxCode({ code: 'ZERO', rate: 0, taxable: false }, given(), meta);
    expect(event.data).toMatchObject({ code: 'ZERO', rate: 0, taxable: false, description: null });
  });

  it('given the code exists, when created again, then 409 tax-code-exists', () => {
    expect(() => decideCreateTaxCode(command, given(created), meta)).toThrow(
      expect.objectContaining({ constructor: ConflictError, code: 'tax-code-exists' }),
    );
  });

  it.each<[string, Partial<CreateTaxCode>, string, string?]>([
    ['an empty code', { code: '' }, '/code'],
    ['a code of 51 characters', { code: 'x'.repeat(51) }, '/code'],
    ['a rate with 5 decimals', { rate: 0.12345 }, '/rate', 'too-many-decimals'],
    ['a rate above 1', { rate: 1.0001 }, '/rate'],
    ['a negative rate', { rate: -0.1 }, '/rate'],
    ['a non-boolean taxable', { taxable: 'yes' as unknown as boolean }, '/taxable'],
  ])('rejects %s with a 422', (_, overrides, pointer, code = 'validation-failed') => {
    expect(() => decideCreateTaxCode({ ...command, ...overrides }, given(), meta)).toThrow(
      expect.objectContaining({ constructor: ValidationError, code, errors: [expect.objectContaining({ pointer })] }),
    );
  });

  it('accepts 50 characters and the bounds 0 and 1', () => {
    expect(decideCreateTaxCode({ ...command, code: 'é'.repeat(50), rate: 1 }, given(), meta)).toHaveLength(1);
    expect(decideCreateTaxCode({ ...command, rate: 0 }, given(), meta)).toHaveLength(1);
  });
});

describe('UpdateTaxCode', () => {
  it('given a code, when its rate changes, then TaxCodeUpdated with the full snapshot', () => {
    expect(decideUpdateTaxCode({ code: 'VAT25', rate: 0.255 }, given(created), meta)).toEqual([
      {
        type: 'TaxCodeUpdated',
        schemaVersion: 1,
        data: { code: 'VAT25', rate: 0.255, taxable: true, description: 'Standard VAT', updatedAt: '2025-03-01T10:00:00.000Z' },
      },
    ]);
  });

  it('given a code, when nothing changes, then no event', () => {
    expect(decideUpdateTaxCode({ code: 'VAT25', rate: 0.25, taxable: true }, given(created), meta)).toEqual([]);
  });

  it('clears the description with null and changes taxable', () => {
    const [event] = decideUpdateTaxCode({ code: 'VAT25', taxable: false, description: null }, given(created), meta);
    expect(event.data).toMatchObject({ taxable: false, description: null, rate: 0.25 });
  });

  it('given no code, when updated, then 404', () => {
    expect(() => decideUpdateTaxCode({ code: 'VAT25', rate: 0.1 }, given(), meta)).toThrow(NotFoundError);
  });

  it('given a code, when the rate is invalid, then 422 at /rate', () => {
    expect(() => decideUpdateTaxCode({ code: 'VAT25', rate: 2 }, given(created), meta)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/rate' })] }),
    );
  });
});

describe('evolve and resolveTax', () => {
  it('folds creation and updates into the current code', () => {
    const [updated] = decideUpdateTaxCode({ code: 'VAT25', rate: 0.255 }, given(created), meta);
    const state = given(created, updated);
    expect(state).toEqual({
      exists: true,
      code: 'VAT25',
      rate: 0.255,
      taxable: true,
      description: 'Standard VAT',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-03-01T10:00:00.000Z',
    });
    if (!state.exists) throw new Error('unreachable');
    expect(resolveTax(state)).toEqual({ taxCode: 'VAT25', taxable: true, taxRate: 0.255 });
  });
});
