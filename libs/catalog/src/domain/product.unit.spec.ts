import { CommandMetadata, ValidationError, foldEvents } from '@billing/shared-kernel';
import { deciderSpec } from '@billing/testing/decider-spec';
import { ProductCreated, ProductEvent, decideCreateProduct, evolveProduct, existingProduct, productEvolver, validateCreateProduct } from './product';

const productId = '0b6e1c9a-3f4d-4e2a-8b7c-1d2e3f4a5b6c';
const T0 = '2024-07-01T10:00:00.000Z';
const meta: CommandMetadata = { now: new Date(T0), newId: () => 'unused' };
const created: ProductCreated = { type: 'ProductCreated', schemaVersion: 1, data: { productId, name: 'Widget', description: 'blue', createdAt: T0 } };
const active = foldEvents(productEvolver, [created]);
const spec = deciderSpec(productEvolver);

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
    [
      { name: 'a'.repeat(250), description: null },
      { name: 'a'.repeat(250), description: null },
    ],
    [
      { name: '😀'.repeat(250), description: 'd'.repeat(4000) },
      { name: '😀'.repeat(250), description: 'd'.repeat(4000) },
    ],
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
        { pointer: '/sku', detail: 'unknown property: not accepted here' },
        { pointer: '/a~1b', detail: 'unknown property: not accepted here' },
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
  const create = (state: ReturnType<typeof productEvolver.initialState>) =>
    decideCreateProduct({ productId, input: { name: 'Widget', description: 'blue' } }, state, meta);

  it('given no product, when created, then ProductCreated with the id and the time', () => {
    spec.given([]).when(create).then([created]);
  });

  it('given a product, when created again, then 409 product-exists', () => {
    spec.given([created]).when(create).thenThrows({ kind: 'conflict', code: 'product-exists' });
  });
});

describe('evolveProduct and existingProduct', () => {
  it('given no events, then there is no product (404)', () => {
    expect(foldEvents(productEvolver, [])).toEqual({ status: 'none' });
    expect(() => existingProduct(foldEvents(productEvolver, []), productId)).toThrow(expect.objectContaining({ code: 'not-found' }));
  });

  it('given ProductCreated, then the product exists', () => {
    expect(existingProduct(active, productId)).toEqual({ status: 'active', id: productId, name: 'Widget', description: 'blue', createdAt: T0 });
  });

  it('given a second ProductCreated, then it is ignored', () => {
    const again: ProductEvent = { ...created, data: { ...created.data, name: 'other' } };
    expect(evolveProduct(active, again)).toBe(active);
  });
});
