import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { childPointer, FieldError, UNKNOWN_PROPERTY } from '@billing/shared-kernel';

/** More than any honest mistake makes: a body with more unknown members is refused on the first ones found. */
export const MAX_REPORTED_ERRORS = 50;

type Dto = abstract new (...args: never[]) => unknown;

const ELEMENTS = Symbol('billing:elements');

/**
 * Names the DTO of an array property's elements when its class-transformer
 * type is not that DTO (the invoice lines are converted by hand), so that
 * their unknown members are found before conversion like everyone else's.
 */
export function ElementsOf(dto: () => Dto): PropertyDecorator {
  return (target, property) => Reflect.defineMetadata(ELEMENTS, dto, target, property);
}

interface Shape {
  /** Each accepted member, with the DTO its value is validated as (null: a leaf, whose members class-validator never looks at). */
  readonly members: ReadonlyMap<string, Dto | null>;
}

const shapes = new Map<Dto, Shape | null>();

/**
 * The members of a body that its DTO does not accept, the first `limit` of
 * them, found before class-transformer copies the body: its cost grows with
 * every member, about 2 s for 60 000 unknown ones, while this walk looks at
 * each member once and stops at the limit. The accepted members are the ones
 * class-validator's whitelist accepts (those with validation metadata), and
 * it descends where the whitelist does (nested validation of a known DTO).
 */
export function unknownMembers(body: unknown, dto: Dto, limit = MAX_REPORTED_ERRORS): FieldError[] {
  const found: FieldError[] = [];
  const stack: { value: unknown; dto: Dto; pointer: string }[] = [{ value: body, dto, pointer: '' }];
  while (stack.length > 0 && found.length < limit) {
    const { value, dto: type, pointer } = stack.pop()!;
    const shape = shapeOf(type);
    if (!shape || typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (!shape.members.has(key)) {
        found.push({ pointer: childPointer(pointer, key), detail: UNKNOWN_PROPERTY });
        if (found.length >= limit) break;
        continue;
      }
      const nested = shape.members.get(key);
      const member = (value as Record<string, unknown>)[key];
      if (!nested || typeof member !== 'object' || member === null) continue;
      const at = childPointer(pointer, key);
      if (Array.isArray(member)) member.forEach((item, index) => stack.push({ value: item, dto: nested, pointer: childPointer(at, index) }));
      else stack.push({ value: member, dto: nested, pointer: at });
    }
  }
  return found;
}

/** The DTO's accepted members (null for a class without validation metadata: not a DTO this walk can judge). */
export function shapeOf(dto: Dto): Shape | null {
  if (!shapes.has(dto)) shapes.set(dto, readShape(dto));
  return shapes.get(dto)!;
}

function readShape(dto: Dto): Shape | null {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto as unknown as new () => object, '', false, false);
  if (metadatas.length === 0) return null;
  const members = new Map<string, Dto | null>();
  for (const { propertyName, type } of metadatas) {
    const nested = type === ValidationTypes.NESTED_VALIDATION ? nestedDto(dto, propertyName) : null;
    if (!members.get(propertyName)) members.set(propertyName, nested);
  }
  return { members };
}

function nestedDto(dto: Dto, property: string): Dto | null {
  const elements = Reflect.getMetadata(ELEMENTS, dto.prototype as object, property) as (() => Dto) | undefined;
  const type = elements?.() ?? defaultMetadataStorage.findTypeMetadata(dto, property)?.typeFunction();
  return typeof type === 'function' && getMetadataStorage().getTargetValidationMetadatas(type as new () => object, '', false, false).length > 0
    ? (type as Dto)
    : null;
}
