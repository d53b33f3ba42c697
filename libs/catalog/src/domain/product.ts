import {
  childPointer,
  CommandMetadata,
  ConflictError,
  DomainEvent,
  Evolver,
  FieldError,
  NotFoundError,
  ValidationError,
  deciderOf,
} from '@billing/shared-kernel';
import { UNKNOWN_PROPERTY, isJsonObject, own, textProblem } from './json';
import { PRICE_LIMITS } from './types';

/**
 * The Product aggregate: a named, described thing that prices may point at.
 * Same rules as price text fields; the body is validated at the edge
 * (validateCreateProduct), the decider gets the typed input.
 */

export const PRODUCT_STREAM_TYPE = 'product';

export interface CreateProductInput {
  readonly name: string;
  readonly description: string | null;
}

export interface ProductCreatedData extends CreateProductInput {
  readonly productId: string;
  readonly createdAt: string;
}
export type ProductCreated = DomainEvent<'ProductCreated', ProductCreatedData>;
export type ProductEvent = ProductCreated;

export interface ExistingProduct {
  readonly status: 'active';
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly createdAt: string;
}
export type ProductState = { readonly status: 'none' } | ExistingProduct;

export function initialProductState(): ProductState {
  return { status: 'none' };
}

export function evolveProduct(state: ProductState, event: ProductEvent): ProductState {
  if (event.type !== 'ProductCreated' || state.status !== 'none') return state;
  const { productId, name, description, createdAt } = event.data;
  return { status: 'active', id: productId, name, description, createdAt };
}

export const productEvolver: Evolver<ProductState, ProductEvent> = { initialState: initialProductState, evolve: evolveProduct };

/** The product, or 404. */
export function existingProduct(state: ProductState, productId: string): ExistingProduct {
  if (state.status === 'none') throw new NotFoundError('product', productId);
  return state;
}

/** name: string of 1-250 code points; description: optional (null = absent) string of at most 4000; nothing else. */
export function validateCreateProduct(body: unknown): CreateProductInput {
  if (!isJsonObject(body)) throw ValidationError.at('', 'the request body must be a JSON object');
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) {
    if (key !== 'name' && key !== 'description') errors.push({ pointer: childPointer('', key), detail: UNKNOWN_PROPERTY });
  }
  const name = own(body, 'name');
  if (name === undefined || name === null) errors.push({ pointer: '/name', detail: 'is required' });
  else checkText(name, '/name', 1, PRICE_LIMITS.nameMaxLength, errors);
  const description = own(body, 'description') ?? null;
  if (description !== null) checkText(description, '/description', 0, PRICE_LIMITS.descriptionMaxLength, errors);
  if (errors.length > 0) throw new ValidationError('The product is invalid', errors);
  return { name: name as string, description: description as string | null };
}

function checkText(value: unknown, pointer: string, min: number, max: number, errors: FieldError[]): void {
  const detail = textProblem(value, min, max);
  if (detail) errors.push({ pointer, detail });
}

/** `productId` is the stream id, chosen by the caller (e.g. `meta.newId()`) before loading the stream. */
export interface CreateProduct {
  readonly productId: string;
  readonly input: CreateProductInput;
}

export function decideCreateProduct(command: CreateProduct, state: ProductState, meta: CommandMetadata): ProductCreated[] {
  if (state.status !== 'none') throw new ConflictError('product-exists', `product ${command.productId} already exists`);
  return [{ type: 'ProductCreated', schemaVersion: 1, data: { productId: command.productId, ...command.input, createdAt: meta.now.toISOString() } }];
}

/** The Product aggregate as one value: what it folds (productEvolver) and what each of its commands decides. */
export const productDecider = deciderOf(productEvolver, { CreateProduct: decideCreateProduct });
