import { CommandMetadata, ConflictError, ValidationError, foldEvents } from '@billing/shared-kernel';
import { decideCreateProduct, evolveProduct, initialProductState, productEvolver, toProductView, validateCreateProduct } from './product';

const productId = '0b6e1c9a-3f4d-4e2a-8b7c-1d2e3f4a5b6c';
const T0 = '2024-07-01T10:00:00.000Z';
const meta: CommandMetadata = { now: new Date(T0), newId: () => 'unused' };
const created = decideCreateProduct({ productId, input: { name: 'Widget', description: 'blue' } }, initialProductState(), meta);
const active = foldEvents(productEvolver, created);

function errorsOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).errors;
  }
  throw new Error('expected a ValidationError');
}

describe('validateCreateProduct', () => {
  it.each([
    [{ name: 'a' }, { name: 'a', description: null }],
    [{ name: 'a'.repeat(250), description: null }, { name: 'a'.repeat(250), description: null }],
    [{ name: '😀'.repeat(250), description: 'd'.repeat(4000) }, { name: '😀'.repeat(250), description: 'd'.repeat(4000) }],
  ])('when valid %#, then accepted', (body, expected) => {
    expect(validateCreateProduct(body)).toEqual(expected);
  });

  it.each([
    [{}, [{ pointer: '/name', detail: 'is required' }]],
    [{ name: null }, [{ pointer: '/name', detail: 'is required' }]],
    [{ name: '' }, [{ pointer: '/name', detail: 'must be 1 to 250 characters long' }]],
    [{ name: 'a'.repeat(251) }, [{ pointer: '/name', detail: 'must be 1 to 250 characters long' }]],
    [{ name: 1 }, [{ pointer: '/name', detail: 'must be a string' }]],
    [{ name: 'a', description: 'd'.repeat(4001) }, [{ pointer: '/description', detail: 'must be at most 4000 characters long' }]],
    [
      { name: '', sku: 'x', 'a/b': 1 },
      [
        { pointer: '/sku', detail: 'is not a known property' },
        { pointer: '/a~1b', detail: 'is not a known property' },
        { pointer: '/name', detail: 'must be 1 to 250 characters long' },
      ],
    ],
  ])('when invalid %#, then every error is reported', (body, errors) => {
    expect(errorsOf(() => validateCreateProduct(body))).toEqual(errors);
  });

  it.each([[null], [[]], ['x']])('when the body is %p, then one error at the root', (body) => {
    expect(errorsOf(() => validateCreateProduct(body))).toEqual([{ pointer: '', detail: 'the request body must be a JSON object' }]);
  });
});

describe('decideCreateProduct', () => {
  it('given no product, when created, then ProductCreated with the time', () => {
    expect(created).toEqual([
      { type: 'ProductCreated', schemaVersion: 1, data: { productId, name: 'Widget', description: 'blue', createdAt: T0 } },
    ]);
  });

  it('given no product, when created with an invalid body, then ValidationError', () => {
    expect(() => decideCreateProduct({ productId, input: { name: '' } }, initialProductState(), meta)).toThrow(ValidationError);
  });

  it('given a product, when created again, then ConflictError product-exists', () => {
    expect(() => decideCreateProduct({ productId, input: { name: 'x' } }, active, meta)).toThrow(
      expect.objectContaining({ constructor: ConflictError, code: 'product-exists' }),
    );
  });
});

describe('evolveProduct and toProductView', () => {
  it('given no events, then empty and no view', () => {
    expect(toProductView(initialProductState())).toBeNull();
  });

  it('given ProductCreated, then the view shows it', () => {
    expect(toProductView(active)).toEqual({ id: productId, name: 'Widget', description: 'blue', createdAt: T0 });
  });

  it('given a second ProductCreated, then it is ignored', () => {
    expect(evolveProduct(active, { ...created[0], data: { ...created[0].data, name: 'other' } })).toBe(active);
  });
});
