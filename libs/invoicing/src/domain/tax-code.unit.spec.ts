import { CommandMetadata, foldEvents } from '@billing/shared-kernel';
import { deciderSpec } from '@billing/testing/decider-spec';
import {
  CreateTaxCode,
  TaxCodeEvent,
  decideCreateTaxCode,
  decideUpdateTaxCode,
  evolveTaxCode,
  resolveTax,
  taxCodeEvolver,
  upcastTaxCodeEvent,
} from './tax-code';

const meta: CommandMetadata = { now: new Date('2025-03-01T10:00:00.000Z'), newId: () => 'unused' };
const spec = deciderSpec(taxCodeEvolver);

const created: TaxCodeEvent = {
  type: 'TaxCodeCreated',
  schemaVersion: 2,
  data: { code: 'VAT25', rateBasisPoints: 2500, taxable: true, description: 'Standard VAT', createdAt: '2025-01-01T00:00:00.000Z' },
};
const updated = (data: Partial<Extract<TaxCodeEvent, { type: 'TaxCodeUpdated' }>['data']>): TaxCodeEvent => ({
  type: 'TaxCodeUpdated',
  schemaVersion: 2,
  data: { code: 'VAT25', rateBasisPoints: 2500, taxable: true, description: 'Standard VAT', updatedAt: '2025-03-01T10:00:00.000Z', ...data },
});

describe('decideCreateTaxCode', () => {
  const command: CreateTaxCode = { code: 'VAT25', rate: 0.25, taxable: true, description: 'Standard VAT' };

  it('given no code, when created, then TaxCodeCreated v2 with the rate in basis points', () => {
    spec
      .given([])
      .when((state) => decideCreateTaxCode(command, state, meta))
      .then([{ ...created, data: { ...created.data, createdAt: '2025-03-01T10:00:00.000Z' } }]);
  });

  it('given no code, when created without a description, then the description is null', () => {
    spec
      .given([])
      .when((state) => decideCreateTaxCode({ code: 'ZERO', rate: 0, taxable: false }, state, meta))
      .then([
        {
          type: 'TaxCodeCreated',
          schemaVersion: 2,
          data: { code: 'ZERO', rateBasisPoints: 0, taxable: false, description: null, createdAt: '2025-03-01T10:00:00.000Z' },
        },
      ]);
  });

  it('given no code, when created with 50 characters and the bounds 0 and 1, then created', () => {
    spec
      .given([])
      .when((state) => decideCreateTaxCode({ ...command, code: 'é'.repeat(50), rate: 1 }, state, meta)[0].data)
      .then(expect.objectContaining({ rateBasisPoints: 10_000 }));
    spec
      .given([])
      .when((state) => decideCreateTaxCode({ ...command, rate: 0.0001 }, state, meta)[0].data)
      .then(expect.objectContaining({ rateBasisPoints: 1 }));
  });

  it('given the code exists, when created again, then 409 tax-code-exists', () => {
    spec
      .given([created])
      .when((state) => decideCreateTaxCode(command, state, meta))
      .thenThrows({ kind: 'conflict', code: 'tax-code-exists' });
  });

  it.each<[string, Partial<CreateTaxCode>, string, string?]>([
    ['an empty code', { code: '' }, '/code'],
    ['a code of 51 characters', { code: 'x'.repeat(51) }, '/code'],
    ['a rate that is not a number', { rate: '0.1' as unknown as number }, '/rate'],
    ['a rate with 5 decimals', { rate: 0.12345 }, '/rate', 'too-many-decimals'],
    ['a rate above 1', { rate: 1.0001 }, '/rate'],
    ['a negative rate', { rate: -0.1 }, '/rate'],
    ['a non-boolean taxable', { taxable: 'yes' as unknown as boolean }, '/taxable'],
  ])('given no code, when created with %s, then 422', (_, overrides, pointer, code = 'validation-failed') => {
    spec
      .given([])
      .when((state) => decideCreateTaxCode({ ...command, ...overrides }, state, meta))
      .thenThrows({ kind: 'validation', code, errors: [expect.objectContaining({ pointer })] });
  });
});

describe('decideUpdateTaxCode', () => {
  it('given a code, when its rate changes, then TaxCodeUpdated v2 with the full snapshot', () => {
    spec
      .given([created])
      .when((state) => decideUpdateTaxCode({ code: 'VAT25', rate: 0.255 }, state, meta))
      .then([updated({ rateBasisPoints: 2550 })]);
  });

  it('given a code, when nothing changes, then no event', () => {
    spec
      .given([created])
      .when((state) => decideUpdateTaxCode({ code: 'VAT25', rate: 0.25, taxable: true, description: 'Standard VAT' }, state, meta))
      .then([]);
    spec
      .given([created])
      .when((state) => decideUpdateTaxCode({ code: 'VAT25' }, state, meta))
      .then([]);
  });

  it('given a code, when taxable changes and the description is null, then both change and the rate is kept', () => {
    spec
      .given([created])
      .when((state) => decideUpdateTaxCode({ code: 'VAT25', taxable: false, description: null }, state, meta))
      .then([updated({ taxable: false, description: null })]);
  });

  it('given no code, when updated, then 404', () => {
    spec
      .given([])
      .when((state) => decideUpdateTaxCode({ code: 'VAT25', rate: 0.1 }, state, meta))
      .thenThrows({ kind: 'not_found', code: 'not-found' });
  });

  it.each<[string, object, string, string?]>([
    ['a rate above 1', { rate: 2 }, '/rate'],
    ['a rate with 5 decimals', { rate: 0.12345 }, '/rate', 'too-many-decimals'],
    ['a non-boolean taxable', { taxable: 1 }, '/taxable'],
  ])('given a code, when updated with %s, then 422', (_, overrides, pointer, code = 'validation-failed') => {
    spec
      .given([created])
      .when((state) => decideUpdateTaxCode({ code: 'VAT25', ...overrides }, state, meta))
      .thenThrows({ kind: 'validation', code, errors: [expect.objectContaining({ pointer })] });
  });
});

describe('evolve and resolveTax', () => {
  it('starts with no code', () => {
    expect(taxCodeEvolver.initialState()).toEqual({ status: 'none' });
  });

  it('folds creation and updates into the current code, and resolves the rate as a fraction', () => {
    const state = foldEvents(taxCodeEvolver, [created, updated({ rateBasisPoints: 2550 })]);
    expect(state).toEqual({
      status: 'active',
      code: 'VAT25',
      rateBasisPoints: 2550,
      taxable: true,
      description: 'Standard VAT',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-03-01T10:00:00.000Z',
    });
    if (state.status !== 'active') throw new Error('expected a tax code');
    expect(resolveTax(state)).toEqual({ taxCode: 'VAT25', taxable: true, taxRate: 0.255 });
  });

  it('ignores an update without a code, and event types it does not know', () => {
    expect(foldEvents(taxCodeEvolver, [updated({})])).toEqual({ status: 'none' });
    const state = foldEvents(taxCodeEvolver, [created]);
    expect(evolveTaxCode(state, { type: 'TaxCodeRenamed', schemaVersion: 1, data: {} } as unknown as TaxCodeEvent)).toBe(state);
  });
});

describe('upcastTaxCodeEvent', () => {
  const v1Created = {
    type: 'TaxCodeCreated',
    schemaVersion: 1,
    data: { code: 'VAT255', rate: 0.255, taxable: true, description: null, createdAt: '2025-01-01T00:00:00.000Z' },
  };

  it('turns a v1 TaxCodeCreated (rate as a fraction) into v2 (rate in basis points), keeping every other member', () => {
    expect(upcastTaxCodeEvent(v1Created)).toEqual({
      type: 'TaxCodeCreated',
      schemaVersion: 2,
      data: { code: 'VAT255', rateBasisPoints: 2550, taxable: true, description: null, createdAt: '2025-01-01T00:00:00.000Z' },
    });
  });

  it('turns a v1 TaxCodeUpdated into v2', () => {
    const v1 = {
      type: 'TaxCodeUpdated',
      schemaVersion: 1,
      data: { code: 'VAT255', rate: 0.24, taxable: false, description: 'Reduced', updatedAt: '2025-02-01T00:00:00.000Z' },
    };
    expect(upcastTaxCodeEvent(v1)).toEqual({
      type: 'TaxCodeUpdated',
      schemaVersion: 2,
      data: { code: 'VAT255', rateBasisPoints: 2400, taxable: false, description: 'Reduced', updatedAt: '2025-02-01T00:00:00.000Z' },
    });
  });

  it('is exact for every rate of at most 4 decimals, 0 to 1 (as v1 validated them)', () => {
    const wrong: number[] = [];
    for (let basisPoints = 0; basisPoints <= 10_000; basisPoints++) {
      // The JSON number a v1 event holds: the shortest double of the 4-decimal fraction, as written by the service.
      const rate = JSON.parse(JSON.stringify(Number((basisPoints / 10_000).toFixed(4)))) as number;
      const upcast = upcastTaxCodeEvent({ ...v1Created, data: { ...v1Created.data, rate } });
      if ((upcast.data as { rateBasisPoints: number }).rateBasisPoints !== basisPoints) wrong.push(basisPoints);
    }
    expect(wrong).toEqual([]);
  });

  it('leaves current (v2) events and other types as they are', () => {
    expect(upcastTaxCodeEvent(created)).toBe(created);
    const other = { type: 'TaxCodeArchived', schemaVersion: 1, data: { code: 'X' } };
    expect(upcastTaxCodeEvent(other)).toBe(other);
  });

  it('gives events the evolver folds like ones written as v2', () => {
    const folded = foldEvents(taxCodeEvolver, [upcastTaxCodeEvent(v1Created) as TaxCodeEvent]);
    expect(folded).toMatchObject({ status: 'active', rateBasisPoints: 2550 });
    expect(folded).not.toHaveProperty('rate');
  });
});
